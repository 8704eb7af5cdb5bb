/** How a `go build` ended: its exit code, or the signal that killed it, and the end of its stderr. */
export interface GoExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** "exit 1", or "was killed by SIGKILL" (interrupted, or the out-of-memory killer), for messages. */
export function describeGoExit(exit: GoExit): string {
  return exit.signal !== null ? `was killed by ${exit.signal}` : `failed (exit ${exit.code})`;
}

/** What a build that ran out of room or of a writable place says (Go quotes the system's errno text). */
const MACHINE_FAILURE = /no space left on device|disk quota exceeded|read-only file system/i;

/**
 * Whether a failed etcd build may fall back to Debian's etcd-server (remembered for a day): only
 * when go itself failed building etcd (a module it could not fetch, a compile error), not when it
 * was killed (Ctrl-C, the out-of-memory killer) nor when the disk was full or read-only: those say
 * nothing about etcd, and the fallback would pin an older etcd for a day after a passing problem of
 * this machine.
 */
export function etcdFallbackAllowed(exit: GoExit): boolean {
  return exit.signal === null && !MACHINE_FAILURE.test(exit.stderr);
}
