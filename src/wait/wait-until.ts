import pWaitFor, { TimeoutError } from 'p-wait-for';

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
  try {
    await pWaitFor(check, {
      interval: options.intervalMs ?? 100,
      timeout: Math.max(0, options.timeoutMs),
      ...(signal ? { signal } : {}),
    });
    return 'ok';
  } catch (error) {
    if (error instanceof TimeoutError) return 'timeout';
    if (signal?.aborted && error === signal.reason) return 'aborted';
    throw error;
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
