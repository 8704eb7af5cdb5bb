import { VoeError } from '../errors/index.js';

/** Stable codes of the tracker's errors and of `voe watch`, `voe status`, `voe enable`, `voe disable` (docs/errors.md "tracker"). */
export const TrackerErrorCode = {
  Usage: 'TRACKER_USAGE',
  Kubeconfig: 'TRACKER_KUBECONFIG',
  ListenFailed: 'TRACKER_LISTEN_FAILED',
  KubevirtMissing: 'TRACKER_KUBEVIRT_MISSING',
  ApiFailed: 'TRACKER_API_FAILED',
} as const;

export type TrackerErrorCode = (typeof TrackerErrorCode)[keyof typeof TrackerErrorCode];

export class TrackerError extends VoeError<TrackerErrorCode> {}
