import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepAbandonedDirs } from '../lock/index.js';
import { OWN_DIR_PREFIX, OWNER_LOCK } from './make-owned-temp-dir.js';
import { readPidFile } from './read-pid-file.js';
import { runsIn } from './runs-in.js';

/** Kills the etcd and kube-apiserver the pid files in `dir` name, when they still run there (see runsIn). */
async function stopLeftProcesses(dir: string): Promise<void> {
  for (const file of ['kube-apiserver.pid', 'etcd.pid']) {
    const pid = await readPidFile(join(dir, file));
    if (pid !== undefined && (await runsIn(pid, dir))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* ended meanwhile */
      }
    }
  }
}

/**
 * Removes the temporary directories of control planes whose owner is gone (killed with SIGKILL,
 * which no handler sees: its etcd and kube-apiserver ran on, with ~100 MB of etcd data and the
 * cluster's keys left in the directory): kills the etcd and kube-apiserver its pid files name (only
 * processes of that directory, see runsIn), then removes it. Only directories with an owner lock
 * (makeOwnedTempDir) whose process has ended are touched (sweepAbandonedDirs): never one of a live
 * process, and never one without that lock (another voe's). Resolves with the directories
 * removed; never fails.
 */
export function removeAbandonedControlPlanes(parent: string = tmpdir()): Promise<string[]> {
  return sweepAbandonedDirs(parent, {
    prefix: OWN_DIR_PREFIX,
    lockName: OWNER_LOCK,
    beforeRemove: stopLeftProcesses,
  });
}
