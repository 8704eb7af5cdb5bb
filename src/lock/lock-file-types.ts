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
