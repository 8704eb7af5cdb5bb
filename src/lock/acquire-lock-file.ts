import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
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

/** This process's PID namespace ("pid:[4026531836]"), or "" where /proc does not say. */
function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

/** A takeover marker older than this was left by a process that died in the middle of one (they take microseconds). */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Whether the lock file `holder` ("<pid> <token> [<pid namespace>]") belongs to a process that no
 * longer exists. Only judged inside our own PID namespace: a pid from another namespace (a voe in a
 * container without hostPID, or on the host while we are in one) says nothing about liveness here,
 * so such a lock is waited for, never taken over. A lock without a namespace (older voe) is judged.
 */
function holderDead(holder: string, namespace: string): boolean {
  const [pidText, , holderNamespace] = holder.trim().split(' ');
  const pid = Number(pidText);
  if (holder === '' || !Number.isInteger(pid) || pid <= 0) return false;
  if (holderNamespace !== undefined && holderNamespace !== namespace) return false;
  return !processAlive(pid);
}

/**
 * Removes the stale lock file whose content is `holder`, if it still is; false when another waiter
 * is taking over (then wait and look again). Takeovers are serialised
 * through a second atomically created file (`<lock>.takeover`), so of several waiters that found the
 * same stale lock one removes it, and none removes a lock another waiter has since created.
 */
async function removeStale(lockPath: string, holder: string, marker: string, markerContent: string): Promise<boolean> {
  const takeover = `${lockPath}.takeover`;
  try {
    await writeFile(marker, markerContent, { flag: 'wx' });
    await link(marker, takeover);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another waiter is taking over; a marker left by a process that died mid-takeover is cleared.
    const age = await stat(takeover).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (age > TAKEOVER_STALE_MS) await unlink(takeover).catch(() => undefined);
    return false;
  } finally {
    await unlink(marker).catch(() => undefined);
  }
  try {
    if ((await readFile(lockPath, 'utf8').catch(() => '')) === holder) await unlink(lockPath).catch(() => undefined);
  } finally {
    if ((await readFile(takeover, 'utf8').catch(() => '')) === markerContent) await unlink(takeover).catch(() => undefined);
  }
  return true;
}

/**
 * A lock shared between processes: a file holding "<pid> <token> <pid namespace>" created
 * atomically (link(2) of a complete temporary file). A lock file whose process no longer exists
 * (judged in our PID namespace only) is stale and is taken over, one waiter at a time, so a holder
 * that was killed never blocks the others and two waiters never both hold the lock.
 */
export async function acquireLockFile(lockPath: string, options: AcquireLockFileOptions): Promise<ReleaseLockFile> {
  const token = randomUUID();
  const namespace = pidNamespace();
  const content = `${process.pid} ${token}${namespace ? ` ${namespace}` : ''}\n`;
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
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST') throw options.cannotCreate(code ?? 'error', error);
      }
      const holder = await readFile(lockPath, 'utf8').catch(() => '');
      if (holderDead(holder, namespace)) {
        let removed: boolean;
        try {
          removed = await removeStale(lockPath, holder, `${lockPath}.${token}.takeover`, content);
        } catch (error) {
          throw options.cannotCreate((error as NodeJS.ErrnoException).code ?? 'error', error);
        }
        if (removed) continue;
      }
      const holderPid = holder.split(' ')[0] || 'unknown';
      if (!waited) options.onWait?.(holderPid);
      waited = true;
      if (Date.now() >= options.deadline) throw options.busy(holderPid);
      await sleep(options.pollMs ?? 50);
    }
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
