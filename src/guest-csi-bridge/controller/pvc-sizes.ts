import { parseQuantityCeil } from '../../kube/index.js';
import type { HostPvc } from '../host/host-objects.js';

function bytesOf(quantity: string | undefined): bigint | undefined {
  if (quantity === undefined || quantity === '') return undefined;
  try {
    return parseQuantityCeil(quantity);
  } catch {
    return undefined;
  }
}

/** The PVC's `status.capacity.storage` in bytes; undefined when unset or unreadable. */
export function capacityBytesOf(pvc: HostPvc | undefined): bigint | undefined {
  return bytesOf(pvc?.status?.capacity?.['storage']);
}

/** The PVC's `spec.resources.requests.storage` in bytes; undefined when unset or unreadable. */
export function requestBytesOf(pvc: HostPvc | undefined): bigint | undefined {
  return bytesOf(pvc?.spec?.resources?.requests?.['storage']);
}

/**
 * The host's resizer marked the PVC's growth infeasible (either spelling of the API's values,
 * v0.30 and v0.31+): the state and its condition's message. With `requiredBytes`, only a mark
 * about a size that covers it counts: external-resizer records the size it tried in
 * `status.allocatedResources.storage`, and a mark about a smaller size is stale once the request
 * is raised past it (the resizer tries the new size and replaces the mark).
 */
export function hostResizeInfeasible(
  pvc: HostPvc | undefined,
  requiredBytes?: bigint,
): string | undefined {
  const allocated = bytesOf(pvc?.status?.allocatedResources?.['storage']);
  if (requiredBytes !== undefined && allocated !== undefined && allocated < requiredBytes)
    return undefined;
  const state = pvc?.status?.allocatedResourceStatuses?.['storage'];
  if (
    state !== 'ControllerResizeInfeasible' &&
    state !== 'NodeResizeInfeasible' &&
    state !== 'ControllerResizeFailed' &&
    state !== 'NodeResizeFailed'
  )
    return undefined;
  const condition = (pvc?.status?.conditions ?? []).find(
    (c) => c.type === 'ControllerResizeError' || c.type === 'NodeResizeError',
  );
  return condition?.message ? `${state}: ${condition.message}` : state;
}
