import { abandonedCalls } from '../fsresize/index.js';

/**
 * A command that answers once and is then done (`voe flexvolume`, `voe fsresize grow`) asks voe
 * to exit as soon as it has answered, with the exit code it set: kubelet waits for a FlexVolume
 * driver's exit with no timeout of its own. Their output is written synchronously (stdout and
 * stderr are files, pipes or terminals), so nothing is lost.
 */
let requested = false;

export function exitOnceAnswered(): void {
  requested = true;
}

/**
 * Ends the process if a command asked for it. A system call voe stopped waiting for (a stat on a
 * hung FUSE or NFS mount, see abandonedCalls) holds a thread that Node would join on exit, for
 * ever: then, the answer being written, the process ends itself with SIGKILL (its exit status
 * then says "killed"; kubelet reads the FlexVolume answer, a Failure, from its output).
 */
export function exitIfAnswered(): void {
  if (!requested) return;
  if (abandonedCalls() > 0) process.kill(process.pid, 'SIGKILL');
  process.exit();
}
