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
