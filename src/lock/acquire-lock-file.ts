import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Releases a held lock file (only if it is still ours). */
export type ReleaseLockFile = () => Promise<void>;

export interface AcquireLockFileOptions {
  /** Give up at this time (ms since the epoch) with `busy(holderPid)`. */
  deadline: number;
  /** How often a waiter looks at a lock held by another process; default 50 ms. */
  pollMs?: number;
  /** The error to throw when the deadline passes while another live process holds the lock. */
  busy: (holderPid: string) => Error;
  /** The error to throw when the lock file cannot be created at all (errno code given). */
  cannotCreate: (code: string, cause: unknown) => Error;
  /** Called once when the first attempt finds the lock held by a live process. */
  onWait?: (holderPid: string) => void;
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A lock shared between processes: a file holding "<pid> <token>" created atomically (link(2)
 * of a complete temporary file). A lock file whose process no longer exists is stale and is
 * taken over, so a holder that was killed never blocks the others.
 */
export async function acquireLockFile(lockPath: string, options: AcquireLockFileOptions): Promise<ReleaseLockFile> {
  const token = randomUUID();
  const content = `${process.pid} ${token}\n`;
  const temporary = `${lockPath}.${token}`;
  try {
    await mkdir(dirname(lockPath), { recursive: true });
    await writeFile(temporary, content, { flag: 'wx' });
  } catch (error) {
    throw options.cannotCreate((error as NodeJS.ErrnoException).code ?? 'error', error);
  }
  let waited = false;
  try {
    for (;;) {
      try {
        await link(temporary, lockPath);
        return async () => {
          const current = await readFile(lockPath, 'utf8').catch(() => '');
          if (current === content) await unlink(lockPath).catch(() => undefined);
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await readFile(lockPath, 'utf8').catch(() => '');
      const holderPid = holder.split(' ')[0] || 'unknown';
      const pid = Number(holderPid);
      if (holder !== '' && Number.isInteger(pid) && pid > 0 && !processAlive(pid)) {
        // Stale: the holder died. Remove it only if it is still the same stale file.
        if ((await readFile(lockPath, 'utf8').catch(() => '')) === holder) await unlink(lockPath).catch(() => undefined);
        continue;
      }
      if (Date.now() >= options.deadline) throw options.busy(holderPid);
      if (!waited) options.onWait?.(holderPid);
      waited = true;
      await sleep(options.pollMs ?? 50);
    }
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
