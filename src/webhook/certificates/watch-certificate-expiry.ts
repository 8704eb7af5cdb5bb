import type { CertificatePair } from './load-certificate-pair.js';

/** setTimeout holds at most 2^31-1 ms (~24.8 days): a longer wait is taken in steps. */
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Calls `onExpired` once, when `served` expires (a second after its notAfter); nothing when it
 * has expired already. Returns the function that stops waiting. The timer does not keep the
 * process alive.
 */
export function watchCertificateExpiry(
  served: Pick<CertificatePair, 'notAfter'>,
  onExpired: () => void,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  const wait = (): void => {
    const left = served.notAfter.getTime() - Date.now();
    timer = setTimeout(
      () => {
        if (Date.now() <= served.notAfter.getTime()) wait();
        else onExpired();
      },
      Math.min(left + 1_000, LONGEST_TIMEOUT_MS),
    );
    timer.unref();
  };
  if (served.notAfter.getTime() - Date.now() >= 0) wait();
  return () => clearTimeout(timer);
}
