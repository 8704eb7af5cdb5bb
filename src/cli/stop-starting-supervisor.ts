import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { lockControlPlaneDir, readPidFile, runsIn } from '../controlplane/index.js';
import { hasEnded, readProcessStat } from '../lock/index.js';
import { killAndWait } from './kill-and-wait.js';

/**
 * Stops a supervisor `start` spawned that is still starting (the start was interrupted or timed
 * out): SIGTERM makes it kill its etcd and kube-apiserver at once (SIGKILL after 20 s). Then each
 * pid file is settled: one naming a process of DIR that started after this supervisor did is its
 * own (the supervisor may have started kube-apiserver, and written its pid file, just before it
 * died), so that process is killed if it still runs and the file removed; one naming no live
 * process, or a process not of DIR (its pid reused), names nothing of anyone's and is removed too.
 * A pid file naming a live process of DIR older than this supervisor is an earlier control
 * plane's, which the supervisor refused to replace: left alone. Then its lock is removed.
 */
export async function stopStartingSupervisor(dir: string, pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const supervisorStart = readProcessStat(pid)?.startTime ?? null;
  await killAndWait(pid, 20_000);
  for (const file of ['etcd.pid', 'kube-apiserver.pid']) {
    const child = await readPidFile(join(dir, file));
    if (child !== undefined) {
      const stat = readProcessStat(child);
      if (stat !== null && !hasEnded(stat) && (await runsIn(child, dir))) {
        const started = stat.startTime;
        const itsOwn = supervisorStart !== null && started !== null && started >= supervisorStart;
        if (!itsOwn) continue;
        await killAndWait(child, 20_000);
      }
    }
    await rm(join(dir, file), { force: true });
  }
  // Its lock, when it was killed holding it: taken over (its holder is gone) and released; another's stays.
  const release = await lockControlPlaneDir(dir).catch(() => undefined);
  await release?.();
}
