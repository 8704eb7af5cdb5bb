import { join } from 'node:path';
import { buildBinaries, type BuildOptions, type BuiltBinaries } from './build-binaries.js';

export interface ResolvedBinaries extends BuiltBinaries {
  /** Where they came from: "env" (TEST_ASSET_* / KUBEBUILDER_ASSETS) or "cache" (built from Go modules). */
  origin: 'env' | 'cache';
}

/**
 * envtest's lookup convention: TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD, then
 * $KUBEBUILDER_ASSETS/{kube-apiserver,etcd}; otherwise build from Go modules (cached).
 */
export async function resolveBinaries(
  options: BuildOptions & { env: NodeJS.ProcessEnv },
): Promise<ResolvedBinaries> {
  const { env } = options;
  const assets = env.KUBEBUILDER_ASSETS;
  const fromEnvApi =
    env.TEST_ASSET_KUBE_APISERVER ?? (assets ? join(assets, 'kube-apiserver') : undefined);
  const fromEnvEtcd = env.TEST_ASSET_ETCD ?? (assets ? join(assets, 'etcd') : undefined);
  if (fromEnvApi && fromEnvEtcd) {
    return { kubeApiServer: fromEnvApi, etcd: fromEnvEtcd, etcdSource: 'go-build', origin: 'env' };
  }
  const built = await buildBinaries(options);
  return {
    kubeApiServer: fromEnvApi ?? built.kubeApiServer,
    etcd: fromEnvEtcd ?? built.etcd,
    etcdSource: fromEnvEtcd ? 'go-build' : built.etcdSource,
    origin: fromEnvApi || fromEnvEtcd ? 'env' : 'cache',
  };
}
