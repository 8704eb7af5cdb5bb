import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `check` every `intervalMs` until it returns true, the deadline passes, or `abort` returns a reason. */
export async function waitUntil(
  check: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; abort?: () => string | undefined },
): Promise<'ok' | 'timeout' | string> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const reason = options.abort?.();
    if (reason) return reason;
    if (await check().catch(() => false)) return 'ok';
    if (Date.now() >= deadline) return 'timeout';
    await sleep(options.intervalMs ?? 100);
  }
}
