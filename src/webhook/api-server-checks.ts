import { compareQuantities, isKubeError, parseQuantityValue, type QuantityValue } from '../kube/index.js';
import type { PersistentVolumeClaim, StorageClass } from './kube-objects.js';
import type { ResizeFinding } from './resize-snapshot.js';
import { storageRequest } from './storage-request.js';

/**
 * What the API server itself answers a refused resize with, before any webhook is called: an
 * unbound claim and a shrink fail validation (422 Invalid), a StorageClass that does not allow
 * expansion fails the PersistentVolumeClaimResize admission plugin (403 Forbidden).
 */
export interface ApiServerRefusal {
  code: 403 | 422;
  reason: 'Forbidden' | 'Invalid';
}

export const API_SERVER_REFUSALS: Record<string, ApiServerRefusal> = {
  'api-not-bound': { code: 422, reason: 'Invalid' },
  'api-expansion-not-allowed': { code: 403, reason: 'Forbidden' },
  'api-below-capacity': { code: 422, reason: 'Invalid' },
  'api-invalid-size': { code: 422, reason: 'Invalid' },
};

function lenient(read: () => QuantityValue | undefined): QuantityValue | undefined {
  try {
    return read();
  } catch (error) {
    if (isKubeError(error)) return undefined;
    throw error;
  }
}

/**
 * The checks Kubernetes applies to a PVC update before the webhooks (reference
 * kubernetes-expansion.md §6), the first that refuses decides: validation (a size above zero; the
 * spec of an unbound claim is immutable; never below status.capacity, a smaller request above it
 * only to recover from a failed expansion), then PersistentVolumeClaimResize admission for a
 * growing request (StorageClass with allowVolumeExpansion: true). The webhook does not
 * repeat them; `voe check` reports them so its answer is what the user's update would get.
 * Pure; `size` must be a valid quantity.
 */
export function apiServerFindings(pvc: PersistentVolumeClaim, size: string, storageClass: StorageClass | null | undefined): ResizeFinding[] {
  const target = parseQuantityValue(size);
  const request = lenient(() => storageRequest(pvc.spec?.resources?.requests));
  const capacity = lenient(() => storageRequest(pvc.status?.capacity));
  const capacityText = String(pvc.status?.capacity?.['storage']);
  const className = pvc.spec?.storageClassName ?? '';
  const refuse = (decision: string, message: string): ResizeFinding[] =>
    [{ check: 'api-server', outcome: 'refuse', decision, message: `The API server refuses it: ${message}` }];
  if (request !== undefined && compareQuantities(target, request) === 0) {
    return [{ check: 'api-server', outcome: 'pass', decision: 'not-resize', message: `The PVC already requests ${size}: the update changes nothing.` }];
  }
  if (target.num <= 0n) return refuse('api-invalid-size', `a storage request must be greater than zero, got ${size}.`);
  if (pvc.status?.phase !== 'Bound') {
    return refuse('api-not-bound', 'spec is immutable after creation except resources.requests for bound claims, and this one is ' +
      `${pvc.status?.phase ?? 'without a phase'}. Wait until it is Bound.`);
  }
  if (request !== undefined && compareQuantities(target, request) < 0) {
    if (capacity === undefined || compareQuantities(target, capacity) < 0) {
      return refuse('api-below-capacity', `spec.resources.requests.storage can not be less than status.capacity (${capacityText}). ` +
        'Volumes do not shrink; to use less space, copy the data to a new, smaller volume.');
    }
    return [{
      check: 'api-server', outcome: 'pass', decision: 'not-resize',
      message: `A smaller request (not below status.capacity ${capacityText}) is accepted only to recover from a failed expansion ` +
        '(Kubernetes >= 1.32, RecoverVolumeExpansionFailure); older API servers refuse any shrink. Nothing grows.',
    }];
  }
  if (!className || !storageClass || storageClass.allowVolumeExpansion !== true) {
    const why = !className ? 'the PVC names no StorageClass'
      : !storageClass ? `StorageClass "${className}" was not found`
        : `StorageClass "${className}" does not set allowVolumeExpansion: true`;
    const fix = storageClass && className ? ` Set allowVolumeExpansion: true on StorageClass ${className} if its driver can expand volumes.` : '';
    return refuse('api-expansion-not-allowed', `only dynamically provisioned PVCs whose StorageClass supports resize can be expanded (${why}).${fix}`);
  }
  return [{ check: 'api-server', outcome: 'pass', decision: 'allowed', message: `Bound, and StorageClass ${className} allows volume expansion.` }];
}
