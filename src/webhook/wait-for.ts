import { realClock, sleep } from '../kube/index.js';

/**
 * Polls `condition` every `intervalMs` (default 100 ms); true once it holds, false after
 * `timeoutMs` or as soon as `signal` aborts (no timer left behind).
 */
export async function waitFor(
  condition: () => boolean,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  intervalMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (signal?.aborted || Date.now() > deadline) return false;
    await sleep(realClock, intervalMs, signal);
  }
  return true;
}
