import { after, before } from 'mocha';
import { installCrds, type ControlPlane } from '../../../src/controlplane/index.js';
import { startTestControlPlane, TEST_START_TIMEOUT_MS } from '../use-control-plane.js';
import { installSnapshotCrds } from './snapshot-crds.js';

/**
 * A control plane of its own for the guest cluster's host (the Go-built binaries cached under
 * ~/.cache/voe), with our CRDs and those we read (external-snapshotter's too); progress lines go to standard error. Not the
 * shared one: the host scene sets cluster-wide objects (Settings, StorageClasses, KubeVirt, a
 * webhook registration) and one namespace's VMs, which another file's actor would also act on.
 */
export async function startHostControlPlane(): Promise<ControlPlane> {
  const cp = await startTestControlPlane();
  try {
    await installCrds(cp.kubeConfig);
    await installSnapshotCrds(cp.kubeConfig);
  } catch (error) {
    await cp.stop();
    throw error;
  }
  return cp;
}

/**
 * The host control plane for the enclosing mocha `describe`: started in a `before` hook, stopped
 * in an `after` hook after the `beforeStop` functions (what cleans up through the API server) ran.
 * Read `cp` inside hooks and tests only.
 */
export function useHostControlPlane(): {
  readonly cp: ControlPlane;
  beforeStop(stop: () => Promise<void>): void;
} {
  let cp: ControlPlane | undefined;
  const stopFirst: Array<() => Promise<void>> = [];
  before(async function () {
    this.timeout(4 * TEST_START_TIMEOUT_MS);
    cp = await startHostControlPlane();
  });
  after(async function () {
    this.timeout(120_000);
    try {
      for (const stop of stopFirst.splice(0).reverse()) await stop();
    } finally {
      await cp?.stop();
    }
  });
  return {
    get cp(): ControlPlane {
      if (!cp)
        throw new Error('the host control plane is not started yet (read it in a hook or test)');
      return cp;
    },
    beforeStop(stop) {
      stopFirst.push(stop);
    },
  };
}
