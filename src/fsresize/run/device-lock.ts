import { acquireDeviceLockFile } from './acquire-device-lock-file.js';
import { FsResizeError } from '../model/fsresize-error.js';

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
  return {
    async acquire(key, acquireOptions = {}) {
      const timeoutMs = acquireOptions.timeoutMs ?? defaultTimeoutMs;
      const deadline = Date.now() + timeoutMs;
      const { signal } = acquireOptions;
      const turn = queueTurn(tails, key);
      const waited = await waitForTurn(turn.previous, timeoutMs, signal);
      if (waited !== 'turn') {
        // Give our turn away as soon as it comes, so the queue behind us keeps moving.
        void turn.previous.then(turn.finish);
        if (waited === 'stopped') throw interrupted(signal as AbortSignal);
        throw new FsResizeError(
          'FSRESIZE_BUSY',
          `another resize of this device in this process did not finish within ${timeoutMs} ms; retry later`,
        );
      }
      // Inside one process the queue alone orders callers; a tool needs recording only in the file.
      if (options.directory === undefined)
        return Object.assign(async () => turn.finish(), {
          recordTool: () => undefined,
          reserveTool: () => undefined,
        });
      try {
        const releaseFile = await acquireDeviceLockFile(options.directory, key, {
          deadline,
          pollMs,
          signal,
          onWait: acquireOptions.onWait,
          interrupted,
        });
        const release = async (): Promise<void> => {
          try {
            await releaseFile();
          } finally {
            turn.finish();
          }
        };
        return Object.assign(release, {
          recordTool: (pid: number) => releaseFile.recordHelper(pid),
          reserveTool: () => releaseFile.prepareHelper(),
        });
      } catch (error) {
        turn.finish();
        throw error;
      }
    },
  };
}

/**
 * A place in this process's queue for `key`: `previous` settles when the callers before it are
 * done; `finish` ends this caller's turn (and forgets the queue once nobody is in it).
 */
function queueTurn(
  tails: Map<string, Promise<void>>,
  key: string,
): { previous: Promise<void>; finish: () => void } {
  const previous = tails.get(key) ?? Promise.resolve();
  let releaseLocal!: () => void;
  const mine = new Promise<void>((resolve) => {
    releaseLocal = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  const finish = (): void => {
    releaseLocal();
    if (tails.get(key) === tail) tails.delete(key);
  };
  return { previous, finish };
}

/** Whichever comes first: this caller's turn, `timeoutMs`, or a stop asked for through `signal`. */
async function waitForTurn(
  previous: Promise<void>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<'turn' | 'timeout' | 'stopped'> {
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
  return waited;
}
