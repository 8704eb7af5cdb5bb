import { join } from 'node:path';
import { acquireLockFile, ensurePrivateDirectory, type DirectoryProblem } from '../lock/index.js';
import { FsResizeError } from './fsresize-error.js';

/** A held lock: call it to release the lock. */
export interface ReleaseLock {
  (): Promise<void>;
  /**
   * Records a tool started under the lock (a grow or check tool): for other processes the lock
   * stays held while the tool runs, even if this process is killed meanwhile (SIGKILL cannot be
   * caught, and the tool is never stopped midway). Synchronous; call it as soon as the tool runs.
   */
  recordTool(pid: number): void;
  /**
   * Call before starting a tool: makes sure recordTool will be able to name it in the lock file
   * (room staged next to it). Throws FSRESIZE_LOCK_FAILED or FSRESIZE_PERMISSION_DENIED when it
   * cannot (e.g. the lock directory's filesystem is full): start no tool then, as one the lock
   * does not name would not keep the device locked if voe were killed while it runs.
   */
  reserveTool(): void;
}

/** The port that makes the core do one operation per device at a time. */
export interface DeviceLock {
  /**
   * Waits until `key` is free, then holds it until the returned function is called. Fails with
   * FSRESIZE_BUSY after `timeoutMs`, and with FSRESIZE_INTERRUPTED as soon as `signal` is aborted.
   */
  acquire(
    key: string,
    options?: { timeoutMs?: number; signal?: AbortSignal; onWait?: (holderPid: string) => void },
  ): Promise<ReleaseLock>;
}

export interface DeviceLockOptions {
  /**
   * Directory for lock files shared with other processes on the node (e.g. /run/voe/fsresize).
   * Without it the lock only orders callers inside this process.
   */
  directory?: string;
  /** How often a waiter looks at a lock file held by another process; default 50 ms. */
  pollMs?: number;
  /** Default wait before FSRESIZE_BUSY; default 30 minutes (longer than any grow). */
  timeoutMs?: number;
}

function interrupted(signal: AbortSignal): FsResizeError {
  return new FsResizeError(
    'FSRESIZE_INTERRUPTED',
    `stopped (${String(signal.reason ?? 'on request')}) while waiting for another resize of this device to finish; nothing was changed`,
  );
}

/**
 * The production DeviceLock: callers in this process queue behind each other (first come,
 * first served); across processes a lock file `<directory>/<key>.lock` naming this process (and,
 * once recorded, the tool it runs) is created atomically (link(2) of a complete temporary file).
 * A lock file whose process and tool no longer exist is stale and is removed. Waiters never run
 * concurrently with the holder or its tool.
 */
export function createDeviceLock(options: DeviceLockOptions = {}): DeviceLock {
  const tails = new Map<string, Promise<void>>();
  const pollMs = options.pollMs ?? 50;
  const defaultTimeoutMs = options.timeoutMs ?? 30 * 60_000;

  async function acquireFile(
    key: string,
    deadline: number,
    signal: AbortSignal | undefined,
    onWait: ((holderPid: string) => void) | undefined,
  ): ReturnType<typeof acquireLockFile> {
    const directory = options.directory as string;
    const lockPath = join(directory, `${key.replace(/[^A-Za-z0-9_.-]/g, '-')}.lock`);
    const cannotCreate = (code: string, cause: unknown): FsResizeError => {
      const permission = code === 'EACCES' || code === 'EPERM';
      const advice = permission
        ? 'run voe as root on the node or choose another lock directory'
        : code === 'EROFS'
          ? 'it is on a read-only filesystem: choose a writable lock directory (e.g. under /run)'
          : code === 'ENOTDIR'
            ? 'a path component is a file, not a directory: choose another lock directory'
            : code === 'ENOSPC' || code === 'EDQUOT'
              ? 'the filesystem holding it is full: free some space there (or choose another lock directory)'
              : 'choose another lock directory';
      return new FsResizeError(
        permission || code === 'EROFS' ? 'FSRESIZE_PERMISSION_DENIED' : 'FSRESIZE_LOCK_FAILED',
        `cannot create the device lock file in ${directory} (${code}); ${advice}`,
        { cause },
      );
    };
    let problem: DirectoryProblem | undefined;
    try {
      problem = await ensurePrivateDirectory(directory);
    } catch (error) {
      throw cannotCreate((error as NodeJS.ErrnoException).code ?? 'error', error);
    }
    if (problem?.kind === 'owner') {
      // Typically a user other than root against the node's directory: the answer is to run as its owner, not to chown it.
      throw new FsResizeError(
        'FSRESIZE_PERMISSION_DENIED',
        `the device lock directory ${directory} is ${problem.why}: ` +
          'run voe as that user (root on a node, as kubelet runs it) or pass a --lock-dir of your own; nothing was changed',
      );
    }
    if (problem !== undefined) {
      const fix =
        problem.kind === 'writable'
          ? 'make it writable by its owner only (chmod 700)'
          : problem.kind === 'link'
            ? 'replace the link with a directory of its own (mode 700)'
            : 'remove what is there, or let voe create the directory';
      throw new FsResizeError(
        'FSRESIZE_LOCK_FAILED',
        `the device lock directory ${directory} is ${problem.why}: another user could remove or plant ` +
          `its lock files; ${fix}, or choose another lock directory; nothing was changed`,
      );
    }
    return acquireLockFile(lockPath, {
      deadline,
      pollMs,
      cannotCreate,
      ...(signal ? { signal, interrupted: () => interrupted(signal) } : {}),
      ...(onWait ? { onWait } : {}),
      busy: (holderPid) =>
        new FsResizeError(
          'FSRESIZE_BUSY',
          `another process (pid ${holderPid}) is still resizing this device (lock ${lockPath}); wait for it to finish, or remove the lock file if that process and the grow tool it names (helper=) are gone`,
        ),
    });
  }

  return {
    async acquire(key, acquireOptions = {}) {
      const timeoutMs = acquireOptions.timeoutMs ?? defaultTimeoutMs;
      const deadline = Date.now() + timeoutMs;
      const previous = tails.get(key) ?? Promise.resolve();
      let releaseLocal!: () => void;
      const mine = new Promise<void>((resolve) => {
        releaseLocal = resolve;
      });
      const tail = previous.then(() => mine);
      tails.set(key, tail);
      const finishLocal = (): void => {
        releaseLocal();
        if (tails.get(key) === tail) tails.delete(key);
      };
      const { signal } = acquireOptions;
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const waited = await Promise.race([
        previous.then(() => 'turn' as const),
        new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeoutMs);
        }),
        new Promise<'stopped'>((resolve) => {
          onAbort = () => resolve('stopped');
          if (signal?.aborted) onAbort();
          else signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      if (waited !== 'turn') {
        // Give our turn away as soon as it comes, so the queue behind us keeps moving.
        void previous.then(finishLocal);
        if (waited === 'stopped') throw interrupted(signal as AbortSignal);
        throw new FsResizeError(
          'FSRESIZE_BUSY',
          `another resize of this device in this process did not finish within ${timeoutMs} ms; retry later`,
        );
      }
      // Inside one process the queue alone orders callers; a tool needs recording only in the file.
      if (options.directory === undefined)
        return Object.assign(async () => finishLocal(), {
          recordTool: () => undefined,
          reserveTool: () => undefined,
        });
      try {
        const releaseFile = await acquireFile(key, deadline, signal, acquireOptions.onWait);
        const release = async (): Promise<void> => {
          try {
            await releaseFile();
          } finally {
            finishLocal();
          }
        };
        return Object.assign(release, {
          recordTool: (pid: number) => releaseFile.recordHelper(pid),
          reserveTool: () => releaseFile.prepareHelper(),
        });
      } catch (error) {
        finishLocal();
        throw error;
      }
    },
  };
}
