import { TlsError } from './tls-error.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** notBefore (default: five minutes ago) and notAfter = notBefore + skew + days, capped at `limit` (the issuer's notAfter). */
export function validityWindow(
  validityDays: number,
  notBefore?: Date,
  limit?: Date,
): { notBefore: Date; notAfter: Date } {
  if (!Number.isFinite(validityDays) || validityDays <= 0) {
    throw new TlsError(
      'TLS_INVALID_OPTIONS',
      `validityDays must be a positive number, got ${String(validityDays)}.`,
    );
  }
  const start = notBefore ?? new Date(Date.now() - CLOCK_SKEW_MS);
  let end = new Date(start.getTime() + CLOCK_SKEW_MS + validityDays * DAY_MS);
  if (limit && end.getTime() > limit.getTime()) end = new Date(limit.getTime());
  return { notBefore: start, notAfter: end };
}
