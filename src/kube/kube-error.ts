import { VoeError } from '../errors/index.js';

/** Stable codes of errors thrown by src/kube (documented in docs/errors.md, section "kube"). */
export const KubeErrorCode = {
  QuantityInvalid: 'KUBE_QUANTITY_INVALID',
  QuantityFractional: 'KUBE_QUANTITY_FRACTIONAL',
  QuantityOutOfRange: 'KUBE_QUANTITY_OUT_OF_RANGE',
  InformerStopped: 'KUBE_INFORMER_STOPPED',
  InformerUnknownIndex: 'KUBE_INFORMER_UNKNOWN_INDEX',
  LeaderElectionConfig: 'KUBE_LEADER_ELECTION_CONFIG',
  EventRecorderConfig: 'KUBE_EVENT_RECORDER_CONFIG',
  ConflictRetriesExhausted: 'KUBE_CONFLICT_RETRIES_EXHAUSTED',
  RequestFailed: 'KUBE_REQUEST_FAILED',
  KubeconfigInvalid: 'KUBE_KUBECONFIG_INVALID',
} as const;

export type KubeErrorCode = (typeof KubeErrorCode)[keyof typeof KubeErrorCode];

/** The same as KubeErrorCode (the type). */
export type KubeErrorCodeValue = KubeErrorCode;

/** Every error src/kube throws on purpose. */
export class KubeError extends VoeError<KubeErrorCode> {
  constructor(
    code: KubeErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, options);
  }
}

export function isKubeError(value: unknown, code?: KubeErrorCodeValue): value is KubeError {
  return value instanceof KubeError && (code === undefined || value.code === code);
}
