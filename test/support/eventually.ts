import { waitUntil } from '../../src/wait/index.js';

/**
 * Polls `check` (every 100 ms, on src/wait's waitUntil) until it returns true. A check that throws
 * counts as "not yet"; after `timeoutMs` the error says what was awaited and the last error thrown.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<void> {
  let last: unknown;
  const outcome = await waitUntil(
    async () => {
      try {
        return await check();
      } catch (e) {
        last = e;
        return false;
      }
    },
    { timeoutMs },
  );
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
