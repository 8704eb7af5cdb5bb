import { makeDirectories } from '../files/index.js';
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { link, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatLockContent, parseLockContent, type LockProcess } from './lock-content.js';
import { processStartTime } from './process-start-time.js';
import { hasEnded, readProcessStat } from './read-process-stat.js';

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
 * Whether `pid` still runs: it exists and has not ended (a zombie not reaped yet, e.g. orphaned
 * under an init that reaps late, holds nothing). Where /proc does not say, existing is enough.
 */
export function processRuns(pid: number): boolean {
  if (!processAlive(pid)) return false;
  const stat = readProcessStat(pid);
  return stat === null || !hasEnded(stat);
}

/** This process's PID namespace ("pid:[4026531836]"), or "" where /proc does not say. */
function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

/**
 * The room staged for a rewrite of the lock file: more than its longest content (pid, token, PID
 * namespace, start time and a helper's pid and start time come to under 160 bytes).
 */
const SPARE_BYTES = 256;

/** A takeover marker older than this was left by a process that died in the middle of one (they take microseconds). */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Whether a process named in a lock file is alive: its pid exists, it has not ended (a zombie
 * that nobody reaps, e.g. a grow tool orphaned in a container whose init does not reap, still has
 * its pid and start time but holds nothing) and, when the file recorded its start time, the
 * process with that pid started then (not a later one that reused the pid; where /proc does not
 * say, the pid alone decides).
 */
function alive(process: LockProcess): boolean {
  if (!processAlive(process.pid)) return false;
  const stat = readProcessStat(process.pid);
  if (stat === null) return true;
  if (hasEnded(stat)) return false;
  return process.start === undefined || stat.startTime === null || stat.startTime === process.start;
}

/**
 * Whether the lock file `holder` belongs to a holder that is gone: neither the process that took
 * the lock nor the helper it recorded (a grow tool it started) still runs. Only judged inside
 * our own PID namespace: a pid from another namespace (a voe in a container without hostPID, or
 * on the host while we are in one) says nothing about liveness here, so such a lock is waited
 * for, never taken over. A lock without a namespace (older voe) is judged.
 */
function holderDead(holder: string, namespace: string): boolean {
  const content = parseLockContent(holder);
  if (content === null) return false;
  if (content.namespace !== undefined && content.namespace !== namespace) return false;
  return !alive(content.holder) && !(content.helper !== undefined && alive(content.helper));
}

/**
 * Removes the stale lock file whose content is `holder`, if it still is; false when another waiter
 * is taking over (then wait and look again). Takeovers are serialised
 * through a second atomically created file (`<lock>.takeover`), so of several waiters that found the
 * same stale lock one removes it, and none removes a lock another waiter has since created.
 */
async function removeStale(
  lockPath: string,
  holder: string,
  marker: string,
  markerContent: string,
): Promise<boolean> {
  const takeover = `${lockPath}.takeover`;
  try {
    await writeFile(marker, markerContent, { flag: 'wx' });
    await link(marker, takeover);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another waiter is taking over; a marker left by a process that died mid-takeover is cleared.
    const age = await stat(takeover).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > TAKEOVER_STALE_MS) await unlink(takeover).catch(() => undefined);
    return false;
  } finally {
    await unlink(marker).catch(() => undefined);
  }
  try {
    if ((await readFile(lockPath, 'utf8').catch(() => '')) === holder)
      await unlink(lockPath).catch(() => undefined);
  } finally {
    if ((await readFile(takeover, 'utf8').catch(() => '')) === markerContent)
      await unlink(takeover).catch(() => undefined);
  }
  return true;
}

/** A waiter's own files next to the lock: `<lock>.<token>` (its content, staged), `.helper` and `.takeover` after it. */
const LEFTOVER =
  /^\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.helper|\.takeover)?$/;

/**
 * Removes the files other processes staged next to `lockPath` and could not remove because they
 * were killed (SIGKILL, OOM) while waiting for or taking the lock: each holds its process's lock
 * content, so one whose process (and helper) has ended, in our PID namespace, is left over, as is a
 * holder's `.helper` record left empty or partly written. Called by the holder only. The files of
 * live processes, and of processes of other PID namespaces, are left alone.
 */
function sweepLeftovers(lockPath: string, namespace: string): void {
  const directory = dirname(lockPath);
  const base = basename(lockPath);
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(base) || !LEFTOVER.test(name.slice(base.length))) continue;
    const path = join(directory, name);
    let content: string;
    try {
      content = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    // A holder's staged record (`.helper`) that names no process was cut short while being written
    // (its holder killed between creating and filling it). Only a holder stages one, and this
    // process holds the lock now, so it is a leftover too.
    const cutShort = name.endsWith('.helper') && parseLockContent(content) === null;
    if (cutShort || holderDead(content, namespace)) {
      try {
        unlinkSync(path);
      } catch {
        /* removed meanwhile */
      }
    }
  }
}

let own:
  | { namespace: ReturnType<typeof pidNamespace>; start: ReturnType<typeof processStartTime> }
  | undefined;

/** This process's PID namespace and start time: read from /proc once, they never change. */
function ownIdentity(): NonNullable<typeof own> {
  own ??= { namespace: pidNamespace(), start: processStartTime(process.pid) };
  return own;
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
  const mine = {
    holder: { pid: process.pid, ...(start === null ? {} : { start }) },
    token,
    ...(namespace ? { namespace } : {}),
  };
  let content = formatLockContent(mine);
  const temporary = `${lockPath}.${token}`;
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
  let waited = false;
  try {
    for (;;) {
      if (options.signal?.aborted)
        throw options.interrupted?.() ?? new Error(`stopped while waiting for ${lockPath}`);
      try {
        await link(temporary, lockPath);
        let helper: LockProcess | undefined;
        const staged = `${lockPath}.${token}.helper`;
        /** The staged file (open) that the next rewrite fills and renames into place; null until reserved. */
        let spare: number | null = null;
        const dropSpare = (): void => {
          if (spare === null) return;
          try {
            closeSync(spare);
          } catch {
            /* closed */
          }
          try {
            unlinkSync(staged);
          } catch {
            /* never created, or renamed */
          }
          spare = null;
        };
        /**
         * Stages the next rewrite: created anew ('wx': a file or symbolic link planted at that name
         * is never written through) and filled with this process's lock content padded to
         * SPARE_BYTES, so that the rewrite only overwrites what is already allocated. Its content
         * names this process: left behind by a SIGKILL, it is swept away like a waiter's files.
         */
        const reserve = (): void => {
          if (spare !== null) return;
          const descriptor = openSync(staged, 'wx', 0o600);
          try {
            const placeholder = Buffer.from(`${content.trimEnd().padEnd(SPARE_BYTES - 1)}\n`);
            if (
              writeSync(descriptor, placeholder, 0, placeholder.length, 0) !== placeholder.length
            ) {
              throw Object.assign(new Error(`short write to ${staged}`), { code: 'ENOSPC' });
            }
          } catch (error) {
            closeSync(descriptor);
            try {
              unlinkSync(staged);
            } catch {
              /* gone */
            }
            throw error;
          }
          spare = descriptor;
        };
        /** Replaces the lock file's content atomically (a waiter reads the old or the new, never a part); false if it is not ours or cannot be written. */
        const rewrite = (next: string): boolean => {
          let filled = false;
          try {
            if (readFileSync(lockPath, 'utf8') !== content) return false;
            reserve();
            const bytes = Buffer.from(next);
            const descriptor = spare as number;
            if (
              bytes.length > SPARE_BYTES ||
              writeSync(descriptor, bytes, 0, bytes.length, 0) !== bytes.length
            )
              throw new Error('not staged');
            ftruncateSync(descriptor, bytes.length);
            closeSync(descriptor);
            spare = null;
            filled = true;
            renameSync(staged, lockPath);
            content = next;
            return true;
          } catch {
            dropSpare();
            if (filled) {
              try {
                unlinkSync(staged);
              } catch {
                /* gone */
              }
            }
            return false;
          }
        };
        const release = async (): Promise<void> => {
          try {
            const current = await readFile(lockPath, 'utf8').catch(() => '');
            if (current !== content) return;
            // A tool still running (voe stopped waiting for it at its timeout) keeps the lock: it is
            // handed to the tool, which holds it until it ends (then a waiter finds it stale). When
            // the lock cannot be rewritten, it stays as it is, naming this process and the tool:
            // never removed while the tool runs.
            if (helper !== undefined && alive(helper)) {
              rewrite(
                formatLockContent({ holder: helper, token, ...(namespace ? { namespace } : {}) }),
              );
              return;
            }
            await unlink(lockPath).catch(() => undefined);
          } finally {
            dropSpare();
          }
        };
        const prepareHelper = (): void => {
          try {
            reserve();
          } catch (error) {
            throw options.cannotCreate((error as NodeJS.ErrnoException).code ?? 'error', error);
          }
        };
        const recordHelper = (pid: number): void => {
          const helperStart = processStartTime(pid);
          const recorded = { pid, ...(helperStart === null ? {} : { start: helperStart }) };
          // If it cannot be written, the lock stays held by this process; only the helper's survival is not recorded.
          if (rewrite(formatLockContent({ ...mine, helper: recorded }))) {
            helper = recorded;
            // Room for handing the lock to the helper at release (see release), if it is still running then.
            try {
              reserve();
            } catch {
              /* release then leaves the lock naming this process and the helper */
            }
          }
        };
        sweepLeftovers(lockPath, namespace);
        return Object.assign(release, { prepareHelper, recordHelper });
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
      await sleep(
        options.pollMs ?? 50,
        undefined,
        options.signal ? { signal: options.signal } : {},
      ).catch(() => undefined);
    }
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
