import { after } from 'mocha';
import { defaultCacheDir } from '../../src/cli/cache-dir.js';
import { installCrds, startControlPlane, type ControlPlane } from '../../src/controlplane/index.js';
import { startTimeoutFromEnv } from '../../src/controlplane/start-timeout-from-env.js';

/**
 * Where Go-built binaries are cached between runs (outside the clone): the CLI's own default, so
 * the tests use what `voe cluster build` built (an empty VOE_CACHE_DIR counts as unset in both).
 */
export function testCacheDir(): string {
  return defaultCacheDir();
}

/** How long a test waits for each control-plane process: longer than the CLI's 60 s, because two test files start control planes at once. */
export const TEST_START_TIMEOUT_MS = 90_000;

/** `env` for a spawned voe that starts a control plane: the tests' start timeout unless the environment sets one. */
export function controlPlaneTestEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...env,
    KUBEBUILDER_CONTROLPLANE_START_TIMEOUT:
      env['KUBEBUILDER_CONTROLPLANE_START_TIMEOUT'] ?? `${TEST_START_TIMEOUT_MS / 1000}s`,
  };
}

/**
 * Starts a real kube-apiserver + etcd from the cached binaries, with the tests' start timeout
 * unless the environment sets one; its processes are killed if this process exits or is
 * interrupted. The caller stops it. `apiServerArgs` go after the API server's own flags, for a
 * test whose file needs them (e.g. a feature gate; the test says why).
 */
export function startTestControlPlane(
  options: { apiServerArgs?: string[] } = {},
): Promise<ControlPlane> {
  return startControlPlane({
    cacheDir: testCacheDir(),
    env: process.env,
    startTimeoutMs: startTimeoutFromEnv(process.env) ?? TEST_START_TIMEOUT_MS,
    onProgress: (line) => process.stderr.write(`${line}\n`),
    ...(options.apiServerArgs ? { apiServerArgs: options.apiServerArgs } : {}),
  });
}

/** What must stop while the file's control plane still answers (see beforeControlPlaneStops). */
const stopFirst: Array<() => Promise<void>> = [];

/**
 * Runs `stop` in useControlPlane's `after` hook before the control plane stops: for what cleans up
 * through the API server (a webhook registration), which a plain `after` registered later would
 * only reach once the API server is gone (hooks run in the order they were registered).
 */
export function beforeControlPlaneStops(stop: () => Promise<void>): void {
  stopFirst.push(stop);
}

/**
 * Starts a real kube-apiserver + etcd for one test file (with `apiServerArgs` after its own
 * flags), installs our CRDs and the ones we read, and stops everything in an `after` hook (also when a test fails), after whatever was
 * registered with beforeControlPlaneStops. The processes are also killed if the test process
 * exits or is interrupted.
 */
export async function useControlPlane(
  options: { crds?: boolean; apiServerArgs?: string[] } = {},
): Promise<ControlPlane> {
  const cp = await startTestControlPlane(
    options.apiServerArgs ? { apiServerArgs: options.apiServerArgs } : {},
  );
  after(async () => {
    try {
      for (const stop of stopFirst.splice(0).reverse()) await stop();
    } finally {
      await cp.stop();
    }
  });
  if (options.crds ?? true) await installCrds(cp.kubeConfig);
  return cp;
}
