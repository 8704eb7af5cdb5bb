export type { ControlPlane } from './control-plane.js';
export { ControlPlaneError, ControlPlaneErrorCode } from './control-plane-error.js';
export { startControlPlane, type StartControlPlaneOptions } from './start-control-plane.js';
export { startTimeoutFromEnv } from './start-timeout-from-env.js';
export { resolveBinaries, type ResolvedBinaries } from './resolve-binaries.js';
export {
  buildBinaries,
  binariesDir,
  type BuiltBinaries,
  type BuildOptions,
} from './build-binaries.js';
export { installCrds, readCrds, crdManifestDir } from './install-crds.js';
export { killManagedProcesses } from './managed-process.js';
export { lockControlPlaneDir } from './lock-control-plane-dir.js';
export { readPidFile } from './read-pid-file.js';
export { runsIn } from './runs-in.js';
export { KUBERNETES_VERSION, ETCD_VERSION } from './versions.js';
