import { join } from 'node:path';
import {
  acquireLockFile,
  ensurePrivateDirectory,
  type DirectoryProblem,
  type ReleaseLockFile,
} from '../../lock/index.js';
import { FsResizeError } from '../model/fsresize-error.js';

/** The typed error of a lock file that cannot be created in `directory` (errno `code`), with advice. */
function cannotCreate(directory: string, code: string, cause: unknown): FsResizeError {
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
}

/** The typed error of a lock directory another user could tamper with (ensurePrivateDirectory). */
function unsafeDirectory(directory: string, problem: DirectoryProblem): FsResizeError {
  if (problem.kind === 'owner') {
    // Typically a user other than root against the node's directory: the answer is to run as its owner, not to chown it.
    return new FsResizeError(
      'FSRESIZE_PERMISSION_DENIED',
      `the device lock directory ${directory} is ${problem.why}: ` +
        'run voe as that user (root on a node, as kubelet runs it) or pass a --lock-dir of your own; nothing was changed',
    );
  }
  const fix =
    problem.kind === 'writable'
      ? 'make it writable by its owner only (chmod 700)'
      : problem.kind === 'link'
        ? 'replace the link with a directory of its own (mode 700)'
        : 'remove what is there, or let voe create the directory';
  return new FsResizeError(
    'FSRESIZE_LOCK_FAILED',
    `the device lock directory ${directory} is ${problem.why}: another user could remove or plant ` +
      `its lock files; ${fix}, or choose another lock directory; nothing was changed`,
  );
}

/**
 * The lock file `<directory>/<key>.lock` (acquireLockFile), in a directory made private to its
 * owner first, with the core's typed errors: FSRESIZE_BUSY at `deadline`, FSRESIZE_INTERRUPTED
 * when `signal` aborts, FSRESIZE_PERMISSION_DENIED or FSRESIZE_LOCK_FAILED when it cannot be made.
 */
export async function acquireDeviceLockFile(
  directory: string,
  key: string,
  wait: {
    deadline: number;
    pollMs: number;
    signal: AbortSignal | undefined;
    onWait: ((holderPid: string) => void) | undefined;
    interrupted: (signal: AbortSignal) => FsResizeError;
  },
): Promise<ReleaseLockFile> {
  const lockPath = join(directory, `${key.replace(/[^A-Za-z0-9_.-]/g, '-')}.lock`);
  let problem: DirectoryProblem | undefined;
  try {
    problem = await ensurePrivateDirectory(directory);
  } catch (error) {
    throw cannotCreate(directory, (error as NodeJS.ErrnoException).code ?? 'error', error);
  }
  if (problem !== undefined) throw unsafeDirectory(directory, problem);
  const { signal, onWait } = wait;
  return acquireLockFile(lockPath, {
    deadline: wait.deadline,
    pollMs: wait.pollMs,
    cannotCreate: (code, cause) => cannotCreate(directory, code, cause),
    ...(signal ? { signal, interrupted: () => wait.interrupted(signal) } : {}),
    ...(onWait ? { onWait } : {}),
    busy: (holderPid) =>
      new FsResizeError(
        'FSRESIZE_BUSY',
        `another process (pid ${holderPid}) is still resizing this device (lock ${lockPath}); wait for it to finish, or remove the lock file if that process and the grow tool it names (helper=) are gone`,
      ),
  });
}
