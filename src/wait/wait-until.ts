import { setMaxListeners } from 'node:events';
import pWaitFor from 'p-wait-for';

/** How a wait ended: the check held, the time ran out, or `signal` aborted. */
export type WaitOutcome = 'ok' | 'timeout' | 'aborted';

export interface WaitUntilOptions {
  /** How long to wait (Infinity: no limit). */
  timeoutMs: number;
  /** The pause after a check that did not hold (default 100 ms). */
  intervalMs?: number;
  /** Ends the wait at once ('aborted'); a pause in progress is cut short, no timer is left behind. */
  signal?: AbortSignal;
}

/**
 * Runs `check` (at once, then `intervalMs` after each false) until it returns true ('ok'),
 * `timeoutMs` has passed ('timeout'; a check in progress then is let finish and counts) or
 * `signal` aborts ('aborted'). An error thrown by `check` ends the wait with that error (a check
 * whose failure means "not yet" catches it and returns false). Built on p-wait-for.
 */
export async function waitUntil(
  check: () => boolean | PromiseLike<boolean>,
  options: WaitUntilOptions,
): Promise<WaitOutcome> {
  const { signal } = options;
  const timeoutMs = Math.max(0, options.timeoutMs);
  const timeout = Number.isFinite(timeoutMs) ? AbortSignal.timeout(timeoutMs) : undefined;
  // p-wait-for adds an abort listener to the signal it is given for each pause and never removes
  // it: it is given a signal of this wait alone (never the caller's), dropped with its listeners
  // when the wait ends, and the listener-count warning is off for it.
  const sources = [timeout, signal].filter((s): s is AbortSignal => s !== undefined);
  const own = sources.length > 0 ? AbortSignal.any(sources) : undefined;
  if (own) setMaxListeners(0, own);
  try {
    await pWaitFor(check, { interval: options.intervalMs ?? 100, ...(own ? { signal: own } : {}) });
    return 'ok';
  } catch (error) {
    if (!own?.aborted || error !== own.reason) throw error;
    return signal?.aborted && error === signal.reason ? 'aborted' : 'timeout';
  }
}

/** Milliseconds left until `deadline` (a Date.now() time), 0 once it has passed. */
export function msUntil(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}

/** `check` for waitUntil where a failed check (a probe that errs) means "not yet": false instead. */
export function falseOnError(check: () => PromiseLike<boolean>): () => Promise<boolean> {
  return async () => {
    try {
      return await check();
    } catch {
      return false;
    }
  };
}
