import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLockFile } from '../lock/index.js';
import { ControlPlaneError } from './control-plane-error.js';

/** The prefix of a control plane's own temporary directory (no `dir` given). */
export const OWN_DIR_PREFIX = 'voe-cp-';

/** The lock file in such a directory naming the process that owns it (see removeAbandonedControlPlanes). */
export const OWNER_LOCK = '.owner.lock';

/**
 * Creates a control plane's temporary directory under the system's, with DIR/.owner.lock naming
 * this process for the directory's life: a later voe removes the directory, and kills the etcd and
 * kube-apiserver still running there, once that lock's process is gone (it was killed with SIGKILL,
 * which leaves both running and nobody able to find them).
 */
export async function makeOwnedTempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), OWN_DIR_PREFIX));
  await acquireLockFile(join(dir, OWNER_LOCK), {
    deadline: Date.now(),
    busy: (holder) =>
      new ControlPlaneError(
        'CONTROLPLANE_START_FAILED',
        `the new directory ${dir} is already owned by process ${holder}`,
      ),
    cannotCreate: (code, cause) =>
      new ControlPlaneError(
        'CONTROLPLANE_START_FAILED',
        `cannot create ${join(dir, OWNER_LOCK)} (${code})`,
        { cause },
      ),
  });
  return dir;
}
