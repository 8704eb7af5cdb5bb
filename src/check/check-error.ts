import { VoeError } from '../errors/index.js';

/**
 * Errors of `voe check`: `CHECK_USAGE` (bad arguments), `CHECK_PVC_NOT_FOUND` (no such PVC),
 * `CHECK_API_FAILED` (the API server refused or failed a read), `CHECK_KUBECONFIG` (cannot load
 * it); docs/errors.md, section "admission".
 */
export const CheckErrorCode = {
  Usage: 'CHECK_USAGE',
  PvcNotFound: 'CHECK_PVC_NOT_FOUND',
  ApiFailed: 'CHECK_API_FAILED',
  Kubeconfig: 'CHECK_KUBECONFIG',
} as const;

export type CheckErrorCode = (typeof CheckErrorCode)[keyof typeof CheckErrorCode];

export class CheckError extends VoeError<CheckErrorCode> {}
