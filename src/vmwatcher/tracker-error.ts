import { VoeError } from '../errors/index.js';

/** Stable codes of the tracker's errors and of `voe watch`, `voe status`, `voe enable`, `voe disable` (docs/errors.md "tracker"). */
export type TrackerErrorCode =
  | 'TRACKER_USAGE'
  | 'TRACKER_KUBECONFIG'
  | 'TRACKER_LISTEN_FAILED'
  | 'TRACKER_KUBEVIRT_MISSING'
  | 'TRACKER_API_FAILED';

export class TrackerError extends VoeError {
  declare readonly code: TrackerErrorCode;

  constructor(
    code: TrackerErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, options);
  }
}
