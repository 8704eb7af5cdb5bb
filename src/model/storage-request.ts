import { describeJsonType } from '../errors/index.js';
import { isKubeError, KubeError, parseQuantityValue, type QuantityValue } from '../kube/index.js';
import { goTrimSpace } from './read-json-quantity.js';

/**
 * The exact value of `requests.storage` (compare with compareQuantities from src/kube), or
 * undefined when absent; white space around it is ignored, as Kubernetes' JSON decoding does
 * (Go's strings.TrimSpace). For objects the API server sent, which writes quantities without
 * escapes or spaces; JSON text voe decodes itself (an annotation) is read with readJsonQuantity. Throws KubeError KUBE_QUANTITY_INVALID for a malformed quantity.
 */
export function storageRequest(
  requests: Record<string, unknown> | undefined,
): QuantityValue | undefined {
  const raw = requests?.['storage'];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string' && typeof raw !== 'number') {
    throw new KubeError(
      'KUBE_QUANTITY_INVALID',
      `a storage request must be a quantity such as 20Gi, got ${describeJsonType(raw)}`,
    );
  }
  return parseQuantityValue(goTrimSpace(String(raw)));
}

/**
 * storageRequest, with a malformed quantity read as absent: for a value voe reads but does not
 * judge (a stored status.capacity, the stored request `voe check` compares with).
 */
export function storageRequestOrNone(
  requests: Record<string, unknown> | undefined,
): QuantityValue | undefined {
  try {
    return storageRequest(requests);
  } catch (error) {
    if (isKubeError(error)) return undefined;
    throw error;
  }
}
