import { VoeError } from '../errors/index.js';

/** Stable codes of ControlPlaneError (documented in docs/errors.md, section "controlplane"). */
export const ControlPlaneErrorCode = {
  BuildFailed: 'CONTROLPLANE_BUILD_FAILED',
  GoMissing: 'CONTROLPLANE_GO_MISSING',
  GoTooOld: 'CONTROLPLANE_GO_TOO_OLD',
  StartTimeout: 'CONTROLPLANE_START_TIMEOUT',
  ProcessExited: 'CONTROLPLANE_PROCESS_EXITED',
  NotRunning: 'CONTROLPLANE_NOT_RUNNING',
  CrdTimeout: 'CONTROLPLANE_CRD_TIMEOUT',
  CrdManifestInvalid: 'CONTROLPLANE_CRD_MANIFEST_INVALID',
  BinaryMissing: 'CONTROLPLANE_BINARY_MISSING',
  AlreadyRunning: 'CONTROLPLANE_ALREADY_RUNNING',
  StartFailed: 'CONTROLPLANE_START_FAILED',
  StopFailed: 'CONTROLPLANE_STOP_FAILED',
} as const;

export type ControlPlaneErrorCode =
  (typeof ControlPlaneErrorCode)[keyof typeof ControlPlaneErrorCode];

export class ControlPlaneError extends VoeError<ControlPlaneErrorCode> {}
