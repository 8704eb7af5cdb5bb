/**
 * System calls voe stopped waiting for that have not returned (a stat on a hung FUSE or NFS
 * mount). Each one holds a thread of libuv's pool inside the kernel, and Node joins those threads
 * when the process exits: while any is left, `process.exit()` never returns (see
 * src/cli/exit-once-answered.ts for how the command line ends such a process).
 */
let count = 0;

/** Counts `call` as abandoned until it settles. */
export function abandonCall(call: Promise<unknown>): void {
  count += 1;
  const settled = (): void => {
    count -= 1;
  };
  call.then(settled, settled);
}

/** How many abandoned calls have not returned yet. */
export function abandonedCalls(): number {
  return count;
}
