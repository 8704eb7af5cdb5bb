import { exponentialDelay } from '../../kube/index.js';

/**
 * Reads of a pair that cannot be loaded (a file missing, empty, or a key that does not belong to
 * the certificate), which may still be being written: read again soon (250 ms, doubling up to
 * 2 s) for `settleMs` before it counts as a failure.
 */
export interface IncompletePairRetry {
  /** A read failed at `now`: true while the files may still be being written (since the first such read). */
  settling(now: number): boolean;
  /** Reads again soon, the last time when the settle time is over; once at a time. */
  retrySoon(now: number): void;
  /** The files hold a pair that loads: forget the failed reads and any read planned. */
  settled(): void;
}

/** 250 ms, doubling up to 2 s. */
const INCOMPLETE_PAIR_BACKOFF = { baseMs: 250, maxMs: 2_000 };

export function retryIncompletePair(settleMs: number, read: () => void): IncompletePairRetry {
  /** Since when (ms) the files have not held a pair that loads; undefined while they do. */
  let since: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** Reads planned since the files last held a pair that loads: the exponent of the next delay. */
  let retries = 0;
  return {
    settling(now) {
      since ??= now;
      return now - since < settleMs;
    },
    retrySoon(now) {
      if (timer || since === undefined) return;
      retries += 1;
      const delayMs = exponentialDelay(retries, INCOMPLETE_PAIR_BACKOFF);
      timer = setTimeout(
        () => {
          timer = undefined;
          read();
        },
        Math.max(0, Math.min(delayMs, since + settleMs - now)),
      );
      timer.unref();
    },
    settled() {
      since = undefined;
      retries = 0;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
