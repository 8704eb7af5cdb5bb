import { describeJsonType } from '../errors/index.js';
import { KubeError, parseQuantityValue, type QuantityValue } from '../kube/index.js';

/**
 * The exact value of `requests.storage` (compare with compareQuantities from src/kube), or
 * undefined when absent. Throws KubeError KUBE_QUANTITY_INVALID for a malformed quantity.
 */
export function storageRequest(requests: Record<string, unknown> | undefined): QuantityValue | undefined {
  const raw = requests?.['storage'];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string' && typeof raw !== 'number') {
    throw new KubeError('KUBE_QUANTITY_INVALID', `a storage request must be a quantity such as 20Gi, got ${describeJsonType(raw)}`);
  }
  return parseQuantityValue(String(raw));
}
