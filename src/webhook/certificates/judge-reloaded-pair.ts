import { certificateNotValidWhy } from './certificate-not-valid-why.js';
import type { CertificatePair } from './load-certificate-pair.js';

/**
 * What to do with a pair read again: nothing when it is the one served; refuse it when the API
 * server would refuse it (expired, not valid yet) while the served one is accepted; else serve it,
 * saying why it cannot be served now either when that is so.
 */
export type ReloadedPairJudgement =
  { kind: 'unchanged' } | { kind: 'refuse'; why: string } | { kind: 'serve'; notValid?: string };

/** Judges `pair` against the one served (`current`). Pure. */
export function judgeReloadedPair(
  pair: CertificatePair,
  current: CertificatePair | undefined,
  now = new Date(),
): ReloadedPairJudgement {
  if (current && pair.cert === current.cert && pair.key === current.key)
    return { kind: 'unchanged' };
  // A pair the API server would refuse (expired, not valid yet) never replaces one it accepts.
  const notValid = certificateNotValidWhy(pair, now);
  if (notValid === undefined) return { kind: 'serve' };
  if (current !== undefined && certificateNotValidWhy(current, now) === undefined)
    return { kind: 'refuse', why: notValid };
  return { kind: 'serve', notValid };
}
