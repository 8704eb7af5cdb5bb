import { makeDirectories } from '../files/index.js';
import { msUntil, waitUntil } from '../wait/index.js';
import { randomUUID } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { holderDead } from './holder-dead.js';
import { holdLockFile } from './hold-lock-file.js';
import { formatLockContent, type LockContent } from './lock-content.js';
import { ownIdentity } from './own-identity.js';
import { removeStale } from './remove-stale.js';
import { sweepLeftovers } from './sweep-leftovers.js';

/** A held lock file: call it to release the lock (only if it is still ours). */
export interface ReleaseLockFile {
  (): Promise<void>;
  /**
   * Makes sure a helper can be recorded before it is started: stages, next to the lock, the file
   * recordHelper will rewrite the lock from, with room for the helper already taken (a full
   * filesystem cannot then make the record fail). Throws `cannotCreate(code)` when it cannot:
   * start no helper then, as a helper the lock does not name would not keep it held if this
   * process were killed (another process would take the lock over and start a second tool
   * beside it). Synchronous.
   */
  prepareHelper(): void;
  /**
   * Records in the lock file a process started to work under the lock (e.g. a grow tool): the
   * lock then counts as held while that process lives, even if this one is killed (SIGKILL
   * cannot be caught). Synchronous, so it can run right after the process is spawned.
   */
  recordHelper(pid: number): void;
}

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
  /** Stop waiting when this is aborted, with `interrupted()`. */
  signal?: AbortSignal;
  /** The error to throw when `signal` is aborted; default an Error saying so. */
  interrupted?: () => Error;
  /**
   * Create the lock's directory when it is missing (default true). False for a lock inside a
   * directory that may be removed meanwhile (sweepAbandonedDirs): its absence is then `cannotCreate`
   * (ENOENT), never a new, empty directory.
   */
  createDirectory?: boolean;
}

/**
 * A lock shared between processes: a file holding "<pid> <token> <pid namespace> start=<ticks>"
 * created atomically (link(2) of a complete temporary file); `recordHelper` adds
 * "helper=<pid>:<ticks>" (see formatLockContent). A lock file whose process and recorded helper
 * no longer exist (judged in our PID namespace only; start times guard against reused pids) is
 * stale and is taken over, one waiter at a time, so a holder that was killed never blocks the
 * others, two waiters never both hold the lock, and a tool that outlives its killed holder still
 * holds it.
 */
export async function acquireLockFile(
  lockPath: string,
  options: AcquireLockFileOptions,
): Promise<ReleaseLockFile> {
  const token = randomUUID();
  const { namespace, start } = ownIdentity();
  const mine: LockContent = {
    holder: { pid: process.pid, ...(start === null ? {} : { start }) },
    token,
    ...(namespace ? { namespace } : {}),
  };
  const temporary = `${lockPath}.${token}`;
  await stage(temporary, formatLockContent(mine), lockPath, options);
  try {
    return await takeInTurn(lockPath, temporary, mine, namespace, options);
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/** Writes this process's lock content to `temporary`, creating the lock's directory first unless told not to. */
async function stage(
  temporary: string,
  content: string,
  lockPath: string,
  options: AcquireLockFileOptions,
): Promise<void> {
  try {
    if (options.createDirectory !== false) await makeDirectories(dirname(lockPath));
    await writeFile(temporary, content, { flag: 'wx' });
  } catch (error) {
    // Created but not written (ENOSPC, EDQUOT: a full filesystem): an empty file names no process,
    // so no later holder would ever sweep it away.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      await unlink(temporary).catch(() => undefined);
    throw options.cannotCreate((error as NodeJS.ErrnoException).code ?? 'error', error);
  }
}

/**
 * Links the staged `temporary` to `lockPath` until that succeeds: a lock file whose holder is
 * gone is taken over, one held by a live process is waited for (until the deadline or a stop).
 */
async function takeInTurn(
  lockPath: string,
  temporary: string,
  mine: LockContent,
  namespace: string,
  options: AcquireLockFileOptions,
): Promise<ReleaseLockFile> {
  let waited = false;
  let holderPid = 'unknown';
  const taken: { lock?: ReleaseLockFile } = {};
  const outcome = await waitUntil(
    async () => {
      for (;;) {
        const held = await tryToTake(lockPath, temporary, mine, namespace, options);
        if (held !== null) {
          taken.lock = held;
          return true;
        }
        const holder = await readFile(lockPath, 'utf8').catch(() => '');
        if (holderDead(holder, namespace) && (await takeOver(lockPath, holder, mine, options)))
          continue;
        holderPid = holder.split(' ')[0] || 'unknown';
        if (!waited) options.onWait?.(holderPid);
        waited = true;
        return false;
      }
    },
    {
      timeoutMs: msUntil(options.deadline),
      intervalMs: options.pollMs ?? 50,
      signal: options.signal,
    },
  );
  if (outcome === 'ok' && taken.lock) return taken.lock;
  if (outcome === 'aborted')
    throw options.interrupted?.() ?? new Error(`stopped while waiting for ${lockPath}`);
  throw options.busy(holderPid);
}

/** The lock, if the link to `lockPath` was made now; null when another process holds it (EEXIST). */
async function tryToTake(
  lockPath: string,
  temporary: string,
  mine: LockContent,
  namespace: string,
  options: AcquireLockFileOptions,
): Promise<ReleaseLockFile | null> {
  try {
    await link(temporary, lockPath);
    const held = holdLockFile(lockPath, mine, options.cannotCreate);
    sweepLeftovers(lockPath, namespace);
    return held;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') throw options.cannotCreate(code ?? 'error', error);
    return null;
  }
}

/** Removes the stale lock file `holder` (removeStale); false when another waiter is taking over. */
async function takeOver(
  lockPath: string,
  holder: string,
  mine: LockContent,
  options: AcquireLockFileOptions,
): Promise<boolean> {
  try {
    return await removeStale(
      lockPath,
      holder,
      `${lockPath}.${mine.token}.takeover`,
      formatLockContent(mine),
    );
  } catch (error) {
    throw options.cannotCreate((error as NodeJS.ErrnoException).code ?? 'error', error);
  }
}
