import { describeJsonType } from '../errors/index.js';
import { isKubeError, KubeError, parseQuantityValue, type QuantityValue } from '../kube/index.js';

/**
 * Go's unicode.IsSpace at both ends: what strings.TrimSpace removes. Quantity.UnmarshalJSON trims
 * the text before parsing it, so Harvester reads `" 20Gi"` in a volumeClaimTemplates annotation
 * as 20Gi (the API server stores PVC quantities in canonical form, without spaces). JavaScript's
 * trim() differs: it also removes U+FEFF and keeps U+0085.
 */
const GO_SPACE_AT_ENDS = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/**
 * The exact value of `requests.storage` (compare with compareQuantities from src/kube), or
 * undefined when absent; white space around it is ignored, as Kubernetes' JSON decoding does.
 * Throws KubeError KUBE_QUANTITY_INVALID for a malformed quantity.
 */
export function storageRequest(requests: Record<string, unknown> | undefined): QuantityValue | undefined {
  const raw = requests?.['storage'];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string' && typeof raw !== 'number') {
    throw new KubeError('KUBE_QUANTITY_INVALID', `a storage request must be a quantity such as 20Gi, got ${describeJsonType(raw)}`);
  }
  return parseQuantityValue(String(raw).replace(GO_SPACE_AT_ENDS, ''));
}

/**
 * storageRequest, with a malformed quantity read as absent: for a value voe reads but does not
 * judge (a stored status.capacity, the stored request `voe check` compares with).
 */
export function storageRequestOrNone(requests: Record<string, unknown> | undefined): QuantityValue | undefined {
  try {
    return storageRequest(requests);
  } catch (error) {
    if (isKubeError(error)) return undefined;
    throw error;
  }
}
