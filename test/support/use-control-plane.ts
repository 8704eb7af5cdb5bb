import { after } from 'node:test';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { installCrds, startControlPlane, startTimeoutFromEnv, type ControlPlane } from '../../src/controlplane/index.js';

/** Where Go-built binaries are cached between runs (outside the clone). */
export function testCacheDir(): string {
  return process.env.VOE_CACHE_DIR ?? join(homedir(), '.cache', 'voe');
}


/**
 * Starts a real kube-apiserver + etcd for one test file, installs our CRDs and the ones we
 * read, and stops everything in an `after` hook (also when a test fails). The processes are
 * also killed if the test process exits or is interrupted.
 */
export async function useControlPlane(options: { crds?: boolean } = {}): Promise<ControlPlane> {
  const cp = await startControlPlane({
    cacheDir: testCacheDir(),
    env: process.env,
    // Tests wait longer than the CLI's 60 s (two test files start control planes at once) unless the environment says otherwise.
    startTimeoutMs: startTimeoutFromEnv(process.env) ?? 90_000,
    onProgress: (line) => process.stderr.write(`${line}\n`),
  });
  after(() => cp.stop());
  if (options.crds ?? true) await installCrds(cp.kubeConfig);
  return cp;
}
