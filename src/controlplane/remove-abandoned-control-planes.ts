import { readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLockFile } from '../lock/index.js';
import { OWN_DIR_PREFIX, OWNER_LOCK } from './make-owned-temp-dir.js';
import { readPidFile } from './read-pid-file.js';
import { runsIn } from './runs-in.js';

/**
 * Removes the temporary directories of control planes whose owner is gone (killed with SIGKILL,
 * which no handler sees: its etcd and kube-apiserver ran on, with ~100 MB of etcd data and the
 * cluster's keys left in the directory): kills the etcd and kube-apiserver its pid files name (only
 * processes of that directory, see runsIn), then removes it. Only directories with an owner lock
 * (makeOwnedTempDir) whose process has ended, judged in our PID namespace as the lock judges, are
 * touched: never one of a live process, and never one without that lock (another voe's). Resolves
 * with the directories removed; never fails.
 */
export async function removeAbandonedControlPlanes(parent: string = tmpdir()): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names.filter((entry) => entry.startsWith(OWN_DIR_PREFIX))) {
    const dir = join(parent, name);
    // Without an owner lock it is another voe's (or one being made this instant): left alone.
    if (!(await stat(join(dir, OWNER_LOCK)).then((info) => info.isFile(), () => false))) continue;
    // Taken at once only when its owner is gone (a stale lock is taken over); a live owner's is busy.
    const taken = await acquireLockFile(join(dir, OWNER_LOCK), {
      deadline: Date.now(),
      busy: () => new Error('owned'),
      cannotCreate: () => new Error('no owner lock here'),
    }).then(() => true, () => false);
    if (!taken) continue;
    for (const file of ['kube-apiserver.pid', 'etcd.pid']) {
      const pid = await readPidFile(join(dir, file));
      if (pid !== undefined && await runsIn(pid, dir)) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* ended meanwhile */ }
      }
    }
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => undefined);
    removed.push(dir);
  }
  return removed;
}
