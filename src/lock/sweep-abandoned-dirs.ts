import { lstat, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireLockFile } from './acquire-lock-file.js';
import { processAlive } from './process-alive.js';

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
 * alone. A directory a sweep had moved aside (`.<name>.removing-<pid>`) but not removed is removed
 * once that sweeper is gone (or is this process). Resolves with the directories removed, by their
 * original names; never throws.
 */
export async function sweepAbandonedDirs(
  parent: string,
  options: SweepAbandonedDirsOptions,
): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const prefix = options.prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const ours = new RegExp(`^${prefix}[A-Za-z0-9]{6}$`);
  const removed: string[] = [];
  // Directories a sweep moved aside and could not remove (rm failed, or the sweeper died before it
  // finished): retried when that sweeper is gone or is this process, renamed to this process first
  // so that of two sweepers only one removes each.
  const movedAside = new RegExp(`^\\.(${prefix}[A-Za-z0-9]{6})\\.removing-(\\d+)$`);
  for (const name of names) {
    const match = movedAside.exec(name);
    if (match) await retryMovedAside(parent, name, match[1] as string, Number(match[2]), removed);
  }
  for (const name of names) {
    const dir = join(parent, name);
    if (!ours.test(name) || dir === options.except) continue;
    await sweepIfAbandoned(parent, name, options, removed);
  }
  return removed;
}

/**
 * Removes `name`, which the sweeper `pid` moved aside from `original`, unless that sweeper still
 * runs (or, when it is this process, is removing it now).
 */
async function retryMovedAside(
  parent: string,
  name: string,
  original: string,
  pid: number,
  removed: string[],
): Promise<void> {
  const removing = join(parent, `.${original}.removing-${process.pid}`);
  if (pid === process.pid ? removingNow.has(removing) : processAlive(pid)) return;
  if (
    pid !== process.pid &&
    !(await rename(join(parent, name), removing).then(
      () => true,
      () => false,
    ))
  )
    return;
  await removeMovedAside(removing, join(parent, original), removed);
}

/** Removes the directory `name` when it holds `lockName` and its owner is gone (its lock taken over). */
async function sweepIfAbandoned(
  parent: string,
  name: string,
  options: SweepAbandonedDirsOptions,
  removed: string[],
): Promise<void> {
  const dir = join(parent, name);
  const lock = join(dir, options.lockName);
  if (
    !(await stat(lock).then(
      (info) => info.isFile(),
      () => false,
    ))
  )
    return;
  // Taken at once only when its owner is gone (a stale lock is taken over); a live owner's is busy,
  // and one we may not write (another user's directory) cannot be taken.
  const taken = await acquireLockFile(lock, {
    deadline: Date.now(),
    createDirectory: false, // one removed by another sweeper meanwhile stays removed
    busy: () => new Error('owned'),
    cannotCreate: (code) => new Error(code),
  }).then(
    () => true,
    () => false,
  );
  if (!taken) return;
  await options.beforeRemove?.(dir);
  // Moved out of the way first (one rename wins): a sweeper that finds the lock gone while this
  // one removes the files would otherwise take the emptied directory for its own to remove too.
  const removing = join(parent, `.${name}.removing-${process.pid}`);
  if (removingNow.has(removing)) return;
  removingNow.add(removing);
  if (
    !(await rename(dir, removing).then(
      () => true,
      () => false,
    ))
  ) {
    removingNow.delete(removing);
    return;
  }
  await removeMovedAside(removing, dir, removed, true);
}

/** The moved-aside directories this process is removing now (its sweeps may run at once). */
const removingNow = new Set<string>();

async function removeMovedAside(
  removing: string,
  dir: string,
  removed: string[],
  claimed = false,
): Promise<void> {
  if (!claimed) {
    if (removingNow.has(removing)) return;
    removingNow.add(removing);
  }
  try {
    // One this process's other sweep removed meanwhile is not reported again.
    if (
      !claimed &&
      !(await lstat(removing).then(
        () => true,
        () => false,
      ))
    )
      return;
    await rm(removing, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).then(
      () => removed.push(dir),
      () => undefined,
    );
  } finally {
    removingNow.delete(removing);
  }
}
