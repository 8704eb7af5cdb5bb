import { readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireLockFile } from './acquire-lock-file.js';

/** What sweepAbandonedDirs looks for, and what it does before it removes a directory. */
export interface SweepAbandonedDirsOptions {
  /** The mkdtemp prefix of the directories: only `<prefix>` followed by mkdtemp's six characters is looked at. */
  prefix: string;
  /** The lock file in each directory naming the process that owns it while it runs. */
  lockName: string;
  /** A directory never touched (the caller's own, already locked). */
  except?: string;
  /**
   * Runs once the lock of a directory whose owner is gone was taken over, before the directory is
   * removed (e.g. stop what the owner left running there). Must not throw.
   */
  beforeRemove?: (dir: string) => Promise<void>;
}

/**
 * Removes the temporary directories under `parent` whose owner was killed without running its
 * clean-up (SIGKILL, the OOM killer): those holding `lockName` whose process is gone. The stale lock
 * is taken over first (acquireLockFile judges it in our PID namespace), so of two processes sweeping
 * at once only one removes a directory, and never one whose owner still runs. A directory without
 * that lock (being made this instant, or another program's), of another name, or `except` is left
 * alone. Resolves with the directories removed; never throws.
 */
export async function sweepAbandonedDirs(parent: string, options: SweepAbandonedDirsOptions): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const ours = new RegExp(`^${options.prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[A-Za-z0-9]{6}$`);
  const removed: string[] = [];
  for (const name of names) {
    const dir = join(parent, name);
    if (!ours.test(name) || dir === options.except) continue;
    const lock = join(dir, options.lockName);
    if (!(await stat(lock).then((info) => info.isFile(), () => false))) continue;
    // Taken at once only when its owner is gone (a stale lock is taken over); a live owner's is busy,
    // and one we may not write (another user's directory) cannot be taken.
    const taken = await acquireLockFile(lock, {
      deadline: Date.now(),
      createDirectory: false, // one removed by another sweeper meanwhile stays removed
      busy: () => new Error('owned'),
      cannotCreate: (code) => new Error(code),
    }).then(() => true, () => false);
    if (!taken) continue;
    await options.beforeRemove?.(dir);
    // Moved out of the way first (one rename wins): a sweeper that finds the lock gone while this
    // one removes the files would otherwise take the emptied directory for its own to remove too.
    const removing = join(parent, `.${name}.removing-${process.pid}`);
    if (!(await rename(dir, removing).then(() => true, () => false))) continue;
    await rm(removing, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).then(() => removed.push(dir), () => undefined);
  }
  return removed;
}
