import { mkdir, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A cross-process lock as a directory (mkdir is atomic). Used so that parallel test
 * processes build the Go binaries once. A lock older than `staleMs` is taken over.
 */
export async function withFileLock<T>(lockDir: string, fn: () => Promise<T>, options: { staleMs?: number; onWait?: () => void } = {}): Promise<T> {
  const staleMs = options.staleMs ?? 45 * 60_000;
  let waited = false;
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const info = await stat(lockDir).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs > staleMs) {
        await rm(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!waited) options.onWait?.();
      waited = true;
      await sleep(500);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}
