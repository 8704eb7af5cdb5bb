import type { CertificatePair } from './load-certificate-pair.js';

/** Why `pair` cannot be served at `now` (expired, or not valid yet), or undefined when it can. */
export function certificateNotValidWhy(
  pair: Pick<CertificatePair, 'notBefore' | 'notAfter'>,
  now = new Date(),
): string | undefined {
  if (now > pair.notAfter) return `the certificate expired at ${pair.notAfter.toISOString()}`;
  if (now < pair.notBefore)
    return `the certificate is not valid before ${pair.notBefore.toISOString()}`;
  return undefined;
}
