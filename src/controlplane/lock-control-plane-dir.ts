import { join } from 'node:path';
import { acquireLockFile } from '../lock/index.js';
import { ControlPlaneError } from './control-plane-error.js';
import { ensureNoEarlierProcesses } from './ensure-no-earlier-processes.js';

/** The lock a control plane's supervisor holds on its directory for its whole life. */
export const CONTROL_PLANE_DIR_LOCK = 'voe-cluster.lock';

/**
 * Takes DIR/voe-cluster.lock at once, or fails with CONTROLPLANE_ALREADY_RUNNING naming the process
 * that holds it: one supervisor per directory (`voe cluster run`/`start`, `voe demo --dir`), so no
 * second one rewrites the certificates and pid files of a control plane that runs or is starting.
 * Also fails so (releasing the lock again) while the etcd or kube-apiserver of an earlier control
 * plane whose supervisor was killed still run there (ensureNoEarlierProcesses). Resolves with the release.
 */
export async function lockControlPlaneDir(dir: string): Promise<() => Promise<void>> {
  const release = await acquireLockFile(join(dir, CONTROL_PLANE_DIR_LOCK), {
    deadline: Date.now(),
    busy: (holder) =>
      new ControlPlaneError(
        'CONTROLPLANE_ALREADY_RUNNING',
        `a control plane already runs (or is starting) for ${dir} (pid ${holder}); use 'voe cluster stop --dir ${dir}' first`,
      ),
    cannotCreate: (code, cause) =>
      new ControlPlaneError(
        'CONTROLPLANE_START_FAILED',
        `cannot create the lock file in ${dir} (${code})`,
        { cause },
      ),
  });
  try {
    await ensureNoEarlierProcesses(dir);
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}
