import { after, before } from 'mocha';
import { defaultCacheDir } from '../../../src/cli/cache-dir.js';
import {
  installCrds,
  startControlPlane,
  startTimeoutFromEnv,
  type ControlPlane,
} from '../../../src/controlplane/index.js';

/** How long a test waits for each control-plane process (two test files may start one at once). */
const START_TIMEOUT_MS = 90_000;

/** A real kube-apiserver + etcd (the Go-built binaries cached under ~/.cache/voe), with our CRDs and those we read. */
export async function startHostControlPlane(
  onProgress: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<ControlPlane> {
  const cp = await startControlPlane({
    cacheDir: defaultCacheDir(),
    env: process.env,
    startTimeoutMs: startTimeoutFromEnv(process.env) ?? START_TIMEOUT_MS,
    onProgress,
  });
  try {
    await installCrds(cp.kubeConfig);
  } catch (error) {
    await cp.stop();
    throw error;
  }
  return cp;
}

/**
 * The host control plane for the enclosing mocha `describe`: started in a `before` hook, stopped
 * in an `after` hook after the `stopFirst` functions (what cleans up through the API server) ran.
 * Read `cp` inside hooks and tests only.
 */
export function useHostControlPlane(): {
  readonly cp: ControlPlane;
  beforeStop(stop: () => Promise<void>): void;
} {
  let cp: ControlPlane | undefined;
  const stopFirst: Array<() => Promise<void>> = [];
  before(async function () {
    this.timeout(4 * START_TIMEOUT_MS);
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
