import { waitUntil } from '../../src/wait/index.js';

export interface EventuallyOptions {
  /** The pause between checks (default 100 ms): shorter where a test must catch a short-lived state. */
  intervalMs?: number;
  /**
   * Says why waiting on is pointless (e.g. the process that should get there exited): when it
   * returns a reason, the wait ends at once with an error saying what was awaited and that reason.
   */
  giveUp?: () => string | undefined;
}

/**
 * Polls `check` (every 100 ms unless told, on src/wait's waitUntil) until it returns true. A check
 * that throws counts as "not yet"; after `timeoutMs` the error says what was awaited and the last
 * error thrown.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
  what = 'condition',
  options: EventuallyOptions = {},
): Promise<void> {
  let last: unknown;
  let gaveUp: string | undefined;
  const outcome = await waitUntil(
    async () => {
      try {
        if (await check()) return true;
      } catch (e) {
        last = e;
      }
      gaveUp = options.giveUp?.();
      return gaveUp !== undefined;
    },
    { timeoutMs, ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }) },
  );
  if (gaveUp !== undefined) throw new Error(`gave up waiting for ${what}: ${gaveUp}`);
  if (outcome !== 'ok')
    throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/**
 * Polls `read` (on eventually) until `accept` holds for what it returns, and returns that. After
 * `timeoutMs` the error says what was awaited and the last value read, or the last error thrown.
 */
export async function eventuallyValue<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  let value: T | undefined;
  let failure: unknown;
  try {
    await eventually(async () => {
      try {
        value = await read();
        failure = undefined;
      } catch (error) {
        failure = error;
        return false;
      }
      return accept(value);
    }, timeoutMs);
  } catch {
    throw new Error(
      `${what}: last ${failure ? `error ${String(failure)}` : `value ${JSON.stringify(value, null, 1)}`}`,
    );
  }
  return value as T;
}
