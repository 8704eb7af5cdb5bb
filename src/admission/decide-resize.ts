import { Decision, type DecisionValue } from './decision.js';
import { compareQuantities, isKubeError, KubeErrorCode } from '../kube/index.js';
import type { AdmissionOptions } from './admission-options.js';
import { expandDisksRule } from './expand-disks-rule.js';
import { hotplugRule } from './hotplug-rule.js';
import { type PersistentVolumeClaim, storageRequest } from '../model/index.js';
import { longhornRule } from './longhorn-rule.js';
import { provisionerRule } from './provisioner-rule.js';
import { resizeCase, type ResizeRule } from './resize-case.js';
import { PVC_EXPAND_PREFIX } from './resize-messages.js';
import type { ResizeDecision, ResizeSnapshot } from './resize-snapshot.js';
import { resizeVerdict } from './resize-verdict.js';
import { runningVmRule } from './running-vm-rule.js';
export { BLOCK_RESIZE_TO_CAPACITY_SINCE } from './longhorn-rule.js';

/**
 * True when the update asks the volume to grow: spec.resources.requests.storage grows (both sides
 * set, new > old). Exact ("10Gi" equals "10240Mi"). A lowered request is not judged: Kubernetes
 * accepts one only above status.capacity, to recover from a failed expansion
 * (KEP-1790, "Recover from volume expansion failure"), and it never asks for more than the request already
 * pending, which the resizer goes on working towards whatever the webhook says; refusing it would
 * keep the larger growth pending and leave no way to lower it while a VM runs. Throws KubeError
 * KUBE_QUANTITY_INVALID for a malformed request, KUBE_QUANTITY_OUT_OF_RANGE for a new one beyond
 * voe's bound (1e1000); an old one beyond it is larger than any new one voe reads.
 */
export function storageGrows(
  oldPvc: PersistentVolumeClaim | null | undefined,
  pvc: PersistentVolumeClaim | null | undefined,
): boolean {
  if (!oldPvc || !pvc) return false;
  const newSize = storageRequest(pvc.spec?.resources?.requests);
  let oldSize;
  try {
    oldSize = storageRequest(oldPvc.spec?.resources?.requests);
  } catch (error) {
    // The API server's validation keeps stored requests above zero: one beyond the bound is huge.
    if (isKubeError(error, KubeErrorCode.QuantityOutOfRange)) return false;
    throw error;
  }
  if (oldSize === undefined || newSize === undefined) return false;
  return compareQuantities(newSize, oldSize) > 0;
}

/**
 * The 422 refusal of a storage request beyond voe's bound (KUBE_QUANTITY_OUT_OF_RANGE): the API
 * server accepts it, voe does not compute it; no storage comes near.
 */
export function outOfRangeDecision(pvcKey: string, error: Error): ResizeDecision {
  const message = `${PVC_EXPAND_PREFIX}the new storage request of PVC ${pvcKey} cannot be judged: ${error.message}.`;
  return {
    allowed: false,
    code: 422,
    reason: 'Invalid',
    message,
    warnings: [],
    decision: Decision.SizeOutOfRange,
    findings: [{ check: 'resize', outcome: 'refuse', decision: Decision.SizeOutOfRange, message }],
  };
}

function pvcKeyOf(pvc: PersistentVolumeClaim): string {
  return `${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`;
}

/** A 500 decision (internal error) outside any check, e.g. cache not synced. */
export function internalErrorDecision(decision: DecisionValue, message: string): ResizeDecision {
  return {
    allowed: false,
    code: 500,
    reason: 'InternalError',
    message,
    warnings: [],
    decision,
    findings: [{ check: 'resize', outcome: 'error', decision, message }],
  };
}

/**
 * The rules of decideResize in Harvester's order (docs/admission.md "The decision"): a VM using
 * the PVC and not Stopped -> ExpandDisks effectively on -> not a hotplugged Filesystem volume ->
 * provisioner validated by the Setting -> Longhorn data engine.
 */
const RESIZE_RULES: readonly ResizeRule[] = [
  runningVmRule,
  expandDisksRule,
  hotplugRule,
  provisionerRule,
  longhornRule,
];

/**
 * Judges a PVC update, purely from the snapshot. Only an update that asks the volume to grow
 * (storageGrows) is judged; everything else is allowed untouched.
 * Order (RESIZE_RULES): a VM using the PVC and not Stopped (or a running VMI naming it, which
 * Harvester does not read: vmUsers) -> ExpandDisks effectively on -> not a hotplugged Filesystem
 * volume -> provisioner validated by the Setting -> Longhorn data engine. The first refusal
 * decides; every check is still evaluated and listed in `findings` (resizeVerdict). With no
 * running VM the resize is allowed (offline).
 */
export function decideResize(snapshot: ResizeSnapshot, options: AdmissionOptions): ResizeDecision {
  const pvcKey = pvcKeyOf(snapshot.pvc);
  const unjudged = unjudgedDecision(snapshot, pvcKey);
  if (unjudged) return unjudged;
  const resize = resizeCase(snapshot, options, pvcKey);
  return resizeVerdict(
    resize,
    RESIZE_RULES.map((rule) => rule(resize)),
  );
}

/**
 * The decision on an update that is not judged: one whose new storage request cannot be read
 * (out of voe's range: 422; malformed: 500), or one that does not ask the volume to grow
 * (allowed). Null for a growth.
 */
function unjudgedDecision(snapshot: ResizeSnapshot, pvcKey: string): ResizeDecision | null {
  let grows: boolean;
  try {
    grows = storageGrows(snapshot.oldPvc, snapshot.pvc);
  } catch (error) {
    if (isKubeError(error, KubeErrorCode.QuantityOutOfRange))
      return outOfRangeDecision(pvcKey, error);
    return internalErrorDecision(
      Decision.QuantityInvalid,
      `internal error: cannot read the storage request of PVC ${pvcKey}: ${(error as Error).message}`,
    );
  }
  if (grows) return null;
  const message = `PVC ${pvcKey}: the update does not ask the volume to grow; nothing to judge.`;
  return {
    allowed: true,
    code: 200,
    message,
    warnings: [],
    decision: Decision.NotResize,
    findings: [{ check: 'resize', outcome: 'skip', decision: Decision.NotResize, message }],
  };
}
