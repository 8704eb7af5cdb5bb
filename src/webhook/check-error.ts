import { VoeError } from '../errors/index.js';

/**
 * Errors of `voe check`: `CHECK_USAGE` (bad arguments), `CHECK_PVC_NOT_FOUND` (no such PVC),
 * `CHECK_API_FAILED` (the API server refused or failed a read), `CHECK_KUBECONFIG` (cannot load it).
 */
export type CheckErrorCode =
  'CHECK_USAGE' | 'CHECK_PVC_NOT_FOUND' | 'CHECK_API_FAILED' | 'CHECK_KUBECONFIG';

export class CheckError extends VoeError {
  declare readonly code: CheckErrorCode;

  constructor(
    code: CheckErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, options);
  }
}
