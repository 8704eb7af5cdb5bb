import { apiErrorOf, isKubeError } from '../../kube/index.js';
import { CsiError } from '../errors/csi-error.js';

/** The host's message, on one line and at most 500 characters. */
export function hostMessage(error: unknown): string {
  const api = apiErrorOf(error);
  const text = (api?.message || (error instanceof Error ? error.message : String(error)))
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

/**
 * A failed host call as a CsiError: CSI_HOST_UNAVAILABLE when the API did not answer (no answer,
 * 429, 5xx), CSI_HOST_REQUEST_FAILED for any other answer (e.g. 403: the host credentials lack a
 * permission). `what` says what was being done ("reading PVC default/pvc-1").
 */
export function hostFailure(error: unknown, what: string): CsiError {
  if (error instanceof CsiError) return error;
  const api = apiErrorOf(error);
  const code = api?.code ?? 0;
  if (isKubeError(error, 'KUBE_REQUEST_FAILED') || code === 0 || code === 429 || code >= 500)
    return new CsiError(
      'CSI_HOST_UNAVAILABLE',
      `${what}: the host API did not answer (${hostMessage(error)}); check the host kubeconfig's server and the network`,
      { cause: error },
    );
  const permission =
    code === 401 || (code === 403 && / cannot [a-z]+ resource /.test(api?.message ?? ''));
  return new CsiError(
    'CSI_HOST_REQUEST_FAILED',
    `${what}: the host answered ${code}${api?.reason ? ` ${api.reason}` : ''}: ${hostMessage(error)}${permission ? '; check the host credentials and their RBAC (docs/csi.md "Host RBAC")' : ''}`,
    { cause: error, details: { httpStatus: code } },
  );
}

/**
 * Whether the host refused a change to a PVC's size for good in admission or validation (never
 * an answer about permissions or availability): the webhook's `PVC_EXPAND` answer, another
 * webhook denial (4xx), the API server's own PersistentVolumeClaimResize refusal (403 "only
 * dynamically provisioned pvc can be resized...", "Only bound persistent volume claims can be
 * expanded") or validation (422). A webhook's internal error (a 5xx, or a denial that says
 * "internal error": e.g. its caches do not know the volume yet) asks for a retry instead.
 */
export function isResizeRefusal(error: unknown): boolean {
  const api = apiErrorOf(error);
  if (!api) return false;
  const message = api.message;
  if (/PVC_EXPAND/.test(message)) return true;
  if (api.code >= 500 || api.code < 400 || /internal error/i.test(message)) return false;
  if (/denied the request/.test(message)) return true;
  if (api.code === 422) return true;
  if (api.code === 403 && !/ cannot [a-z]+ resource /.test(message)) return true;
  return false;
}
