import { VoeError } from '../errors/index.js';

/**
 * Stable codes of a guest growth that was run (runGuestGrowth) or could not be started
 * (`voe guest grow`); each one is documented in docs/errors.md, section "guest growth runner".
 */
export const GuestRunErrorCode = {
  Usage: 'GUESTRUN_USAGE',
  VmNotReady: 'GUESTRUN_VM_NOT_READY',
  DiskNotFound: 'GUESTRUN_DISK_NOT_FOUND',
  AgentFailed: 'GUESTRUN_AGENT_FAILED',
  Changed: 'GUESTRUN_CHANGED',
  StepFailed: 'GUESTRUN_STEP_FAILED',
  StepTimeout: 'GUESTRUN_STEP_TIMEOUT',
  SizeNotReached: 'GUESTRUN_SIZE_NOT_REACHED',
} as const;

export type GuestRunErrorCode = (typeof GuestRunErrorCode)[keyof typeof GuestRunErrorCode];

/** Why a guest growth stopped or did not start; the message says what happened and what to do. */
export class GuestRunError extends VoeError<GuestRunErrorCode> {}
