import { join, resolve } from 'node:path';
import { ControlPlaneError } from './control-plane-error.js';
import { readPidFile } from './read-pid-file.js';
import { runsIn } from './runs-in.js';

/** The pid files startControlPlane writes in its directory, one per process it starts. */
const PROCESS_PID_FILES = [
  ['etcd', 'etcd.pid'],
  ['kube-apiserver', 'kube-apiserver.pid'],
] as const;

/**
 * Fails with CONTROLPLANE_ALREADY_RUNNING when DIR/etcd.pid or DIR/kube-apiserver.pid names a
 * process of DIR's control plane that still runs (judged by runsIn, so a pid reused since by
 * another process does not count): what a supervisor killed with SIGKILL leaves behind. A new
 * control plane there would overwrite those pid files (`voe cluster stop` could then no longer
 * find the old etcd) and its etcd could not open the data the old one holds locked.
 */
export async function ensureNoEarlierProcesses(dir: string): Promise<void> {
  const absolute = resolve(dir);
  const running: string[] = [];
  for (const [name, file] of PROCESS_PID_FILES) {
    const pid = await readPidFile(join(absolute, file));
    if (pid !== undefined && (await runsIn(pid, absolute))) running.push(`${name} (pid ${pid})`);
  }
  if (running.length > 0) {
    throw new ControlPlaneError(
      'CONTROLPLANE_ALREADY_RUNNING',
      `processes of an earlier control plane still run for ${absolute}: ${running.join(', ')}; use 'voe cluster stop --dir ${absolute}' first`,
    );
  }
}
