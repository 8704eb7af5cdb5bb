import { VoeError } from '../../errors/index.js';

/** Stable codes of the guest probe's errors (docs/errors.md "guest probe"). */
export const GuestProbeErrorCode = {
  NoTarget: 'PROBE_NO_TARGET',
  VirshFailed: 'PROBE_VIRSH_FAILED',
  ExecForbidden: 'PROBE_EXEC_FORBIDDEN',
  Timeout: 'PROBE_TIMEOUT',
  Unreadable: 'PROBE_OUTPUT_UNREADABLE',
  GuestExecRefused: 'PROBE_GUEST_EXEC_REFUSED',
  DeviceNotFound: 'PROBE_DEVICE_NOT_FOUND',
} as const;

export type GuestProbeErrorCode = (typeof GuestProbeErrorCode)[keyof typeof GuestProbeErrorCode];

export class GuestProbeError extends VoeError<GuestProbeErrorCode> {}
