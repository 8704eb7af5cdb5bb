/**
 * After the cleanup the process ends by itself once nothing is left running. If something still
 * is (a handle a failed component left open), it must not keep serving half torn down: exit.
 */
export function exitSoon(): void {
  setTimeout(() => {
    process.stderr.write('voe serve: still running 2 s after stopping; exiting\n');
    process.exit();
  }, 2_000).unref();
}
