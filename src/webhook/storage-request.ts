import { parseQuantityValue, type QuantityValue } from '../kube/index.js';

/**
 * The exact value of `requests.storage` (compare with compareQuantities from src/kube), or
 * undefined when absent. Throws KubeError KUBE_QUANTITY_INVALID for a malformed quantity.
 */
export function storageRequest(requests: Record<string, unknown> | undefined): QuantityValue | undefined {
  const raw = requests?.['storage'];
  if (raw === undefined || raw === null) return undefined;
  return parseQuantityValue(String(raw));
}
