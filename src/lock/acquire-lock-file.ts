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
import type { AcquireLockFileOptions, ReleaseLockFile } from './lock-file-types.js';

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
