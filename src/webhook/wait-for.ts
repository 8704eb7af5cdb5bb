import { waitUntil } from '../wait/index.js';

/**
 * waitUntil as a boolean: true once `condition` holds (polled every `intervalMs`, default 100 ms),
 * false after `timeoutMs` or as soon as `signal` aborts (no timer left behind).
 */
export async function waitFor(
  condition: () => boolean,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  intervalMs = 100,
): Promise<boolean> {
  return (await waitUntil(condition, { timeoutMs, intervalMs, signal })) === 'ok';
}
