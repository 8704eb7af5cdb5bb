import { createPrivateKey, createPublicKey } from 'node:crypto';
import {
  BasicConstraintsExtension,
  SubjectAlternativeNameExtension,
  X509Certificate,
} from './x509.js';
import { nodeCrypto } from './webcrypto-provider.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Why a certificate valid from `notBefore` to `notAfter` must be replaced at `now`, or undefined while it may stay. */
export function renewalDueWhy(
  validity: { notBefore: Date; notAfter: Date },
  now: Date,
  renewBeforeDays: number,
): string | undefined {
  if (now.getTime() >= validity.notAfter.getTime())
    return `it expired at ${validity.notAfter.toISOString()}`;
  if (now.getTime() < validity.notBefore.getTime())
    return `it is not valid before ${validity.notBefore.toISOString()}`;
  const left = validity.notAfter.getTime() - now.getTime();
  if (left <= renewBeforeDays * DAY_MS)
    return `it expires at ${validity.notAfter.toISOString()}, within ${renewBeforeDays} days`;
  return undefined;
}

/** The certificate of `pem` (its first block), or undefined when it is not a PEM X.509 certificate. */
export function parseCertificate(pem: string | undefined): X509Certificate | undefined {
  if (!pem) return undefined;
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

/** Whether `keyPem` is the private key of `certificate` (false for a key that cannot be read). */
export function keyBelongsTo(certificate: X509Certificate, keyPem: string | undefined): boolean {
  if (!keyPem) return false;
  try {
    const spki = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
    return spki.equals(Buffer.from(certificate.publicKey.rawData));
  } catch {
    return false;
  }
}

/** Whether `certificate` is a CA (basicConstraints CA:TRUE). */
export function isCa(certificate: X509Certificate): boolean {
  return certificate.getExtension(BasicConstraintsExtension)?.ca === true;
}

/** Whether `issuer`'s key signed `certificate`. */
export async function signedBy(
  certificate: X509Certificate,
  issuer: X509Certificate,
): Promise<boolean> {
  try {
    return await certificate.verify({ publicKey: issuer, signatureOnly: true }, nodeCrypto);
  } catch {
    return false;
  }
}

/** The DNS names and IP addresses among `certificate`'s subject alternative names. */
export function subjectAltNames(certificate: X509Certificate): string[] {
  const extension = certificate.getExtension(SubjectAlternativeNameExtension);
  return (extension?.names.items ?? [])
    .filter((name) => name.type === 'dns' || name.type === 'ip')
    .map((name) => name.value);
}
