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

/** The size the host's resizer last tried (`status.allocatedResources.storage`); undefined when unset. */
export function allocatedBytesOf(pvc: HostPvc | undefined): bigint | undefined {
  return bytesOf(pvc?.status?.allocatedResources?.['storage']);
}

/** The PVC's `spec.resources.requests.storage` in bytes; undefined when unset or unreadable. */
export function requestBytesOf(pvc: HostPvc | undefined): bigint | undefined {
  return bytesOf(pvc?.spec?.resources?.requests?.['storage']);
}

/**
 * What an old resizer's `*ResizeFailed` mark says about the error: external-resizer v1.11 and
 * older write ControllerResizeFailed (and kubelet NodeResizeFailed) for any final error, and its
 * condition message carries the CSI driver's answer (`rpc error: code = OutOfRange desc = ...`).
 * Only the codes external-resizer counts as infeasible from v1.12 (InvalidArgument, OutOfRange,
 * NotFound), or a message that says infeasible, make the mark a refusal.
 */
const INFEASIBLE_MESSAGE = /code = (InvalidArgument|OutOfRange|NotFound)\b|infeasible/i;

/**
 * The host's resizer marked the PVC's growth infeasible (either spelling of the API's values,
 * v0.30 and v0.31+): the state and its condition's message. A `*ResizeFailed` mark counts only
 * when its message says the error is infeasible (INFEASIBLE_MESSAGE). With `requiredBytes`, only
 * a mark about a size that covers it counts: external-resizer records the size it tried in
 * `status.allocatedResources.storage`, and a mark about a smaller size is stale once the request
 * is raised past it (the resizer tries the new size and replaces the mark).
 */
export function hostResizeInfeasible(
  pvc: HostPvc | undefined,
  requiredBytes?: bigint,
): string | undefined {
  const allocated = allocatedBytesOf(pvc);
  if (requiredBytes !== undefined && allocated !== undefined && allocated < requiredBytes)
    return undefined;
  // A mark about another size than the request is stale: the request was lowered (a rollback) or
  // raised since, and the resizer tries the new size (expandAndRecover).
  const request = requestBytesOf(pvc);
  if (allocated !== undefined && request !== undefined && allocated !== request) return undefined;
  const state = pvc?.status?.allocatedResourceStatuses?.['storage'];
  const failed = state === 'ControllerResizeFailed' || state === 'NodeResizeFailed';
  if (state !== 'ControllerResizeInfeasible' && state !== 'NodeResizeInfeasible' && !failed)
    return undefined;
  const condition = (pvc?.status?.conditions ?? []).find(
    (c) => c.type === 'ControllerResizeError' || c.type === 'NodeResizeError',
  );
  if (failed && !INFEASIBLE_MESSAGE.test(condition?.message ?? '')) return undefined;
  return condition?.message ? `${state}: ${condition.message}` : state;
}
