import { formatBytes } from '../../kube/index.js';
import { LONGHORN_DRIVER } from '../../settings/index.js';
import { roundUp } from '../csi/capacity-range.js';
import type { CsiErrorCode } from '../errors/csi-error.js';
import type { HostPvc, HostStorageClass } from '../host/host-objects.js';
import type { ExpandSetting } from './expand-setting.js';
import { provisionersToJudge } from './provisioners-to-judge.js';
import {
  allocatedBytesOf,
  capacityBytesOf,
  hostResizeInfeasible,
  requestBytesOf,
} from './pvc-sizes.js';

/** What the host says about a PVC beyond the PVC itself; read only when the PVC must grow. */
export interface HostFacts {
  /** Host pods that mount the PVC: the host judges a growth as online when there is one. */
  usedBy: readonly string[];
  setting: ExpandSetting;
  /** The PVC's StorageClass; undefined when it names none or it does not exist. */
  storageClass: HostStorageClass | undefined;
}

export interface ExpansionRequest {
  /** `namespace/name` of the host PVC, for messages. */
  pvcKey: string;
  /** The host PVC; undefined when it does not exist. */
  pvc: HostPvc | undefined;
  requiredBytes: bigint;
  /** 0n: no limit. */
  limitBytes: bigint;
  /** The host's allocation unit: a request is rounded up to it (Harvester and Longhorn: 2 MiB). */
  roundingBytes: bigint;
  settingName: string;
  /** Undefined until read: the decision asks for them (`lookup`) when the PVC must grow. */
  host: HostFacts | undefined;
}

export type ExpansionDecision =
  /** The host capacity is at least the size asked for: nothing to write. */
  | { action: 'done'; capacityBytes: bigint }
  /** The PVC must grow: read HostFacts and decide again. */
  | { action: 'lookup' }
  /** The host request is already at or above the size (within the host's rounding): wait for the capacity. */
  | { action: 'wait' }
  /** Raise the host request to `requestBytes`, then wait for the capacity. */
  | { action: 'patch'; requestBytes: bigint }
  | { action: 'refuse'; code: CsiErrorCode; message: string };

const refuse = (code: CsiErrorCode, message: string): ExpansionDecision => ({
  action: 'refuse',
  code,
  message,
});

/**
 * ControllerExpandVolume's decision from the host PVC (and, when it must grow, what the host
 * says about it). Idempotent within the host's rounding: a request already at or above the size
 * is never written again (unless the guest lowered its request below a size the host marked
 * infeasible: the host request is lowered to it, so that size is tried), and a capacity at or
 * above it is success whatever else holds. The
 * Setting is judged as the host's admission judges it: only for a PVC a host pod uses (online),
 * every provisioner of the PVC must be validated (a missing Setting: Harvester's default, Longhorn
 * only); refusals are answered with codes external-resizer counts as infeasible.
 */
export function decideExpansion(request: ExpansionRequest): ExpansionDecision {
  const { pvc, pvcKey, requiredBytes, limitBytes, roundingBytes, settingName } = request;
  if (pvc === undefined || pvc.metadata?.deletionTimestamp)
    return refuse(
      'CSI_VOLUME_NOT_FOUND',
      `host PVC ${pvcKey} ${pvc === undefined ? 'does not exist' : 'is being deleted'}`,
    );
  if (pvc.status?.phase !== 'Bound')
    return refuse(
      'CSI_HOST_PVC_NOT_BOUND',
      `host PVC ${pvcKey} is ${pvc.status?.phase ?? 'not bound'}, not Bound; it can grow once the host has bound it`,
    );
  const capacity = capacityBytesOf(pvc) ?? 0n;
  if (capacity >= requiredBytes) return { action: 'done', capacityBytes: capacity };
  const requested = requestBytesOf(pvc) ?? 0n;
  const infeasible = hostResizeInfeasible(pvc, requiredBytes);
  const rounded = roundUp(requiredBytes, roundingBytes);
  // The guest lowered its request below a size the host refused: the host request is lowered too
  // (a rollback the host's API server allows from Kubernetes 1.32), so the host tries that size.
  const lowering =
    infeasible !== undefined &&
    (allocatedBytesOf(pvc) ?? 0n) > rounded &&
    requested > rounded &&
    (limitBytes === 0n || rounded <= limitBytes);
  if (infeasible !== undefined && requested >= requiredBytes && !lowering)
    return refuse(
      'CSI_HOST_RESIZE_INFEASIBLE',
      `the host cannot grow PVC ${pvcKey} to ${formatBytes(requested)} (${infeasible}); lower the guest PVC's request back to its capacity`,
    );
  if (request.host === undefined) return { action: 'lookup' };
  const { usedBy, setting, storageClass } = request.host;
  if (usedBy.length > 0) {
    if (setting.state === 'invalid')
      return refuse(
        'CSI_SETTING_INVALID',
        `the host's Setting ${settingName} cannot be read (${setting.error.code}: ${setting.error.message}); a host administrator must fix it`,
      );
    const provisioners = provisionersToJudge(pvc, storageClass);
    if (provisioners.length === 0)
      return refuse(
        'CSI_HOST_REQUEST_FAILED',
        `the provisioner of host PVC ${pvcKey} cannot be determined (no storage-provisioner annotation, and its StorageClass ${pvc.spec?.storageClassName ?? '(none)'} is not found)`,
      );
    const unvalidated = provisioners.filter((name) => !setting.validation.allows(name));
    if (unvalidated.length > 0)
      return refuse(
        'CSI_PROVIDER_NOT_VALIDATED',
        `host PVC ${pvcKey} is in use by ${usedBy.join(', ')} and its provisioner ${unvalidated.join(' and ')} is not validated for online expansion in the host's Setting ${settingName}` +
          (setting.state === 'missing'
            ? ` (not found: Harvester's default, {"${LONGHORN_DRIVER}":true}, applies)`
            : '') +
          `; a host administrator can add "${unvalidated[0]}":true to it if the driver supports online expansion, else stop the guest node's VM to grow it offline, or lower the guest PVC's request back to its capacity`,
      );
  }
  if (requested >= requiredBytes && !lowering) return { action: 'wait' };
  if (limitBytes !== 0n && requiredBytes > limitBytes)
    return refuse(
      'CSI_CAPACITY_OUT_OF_RANGE',
      `${formatBytes(requiredBytes)} is above the limit ${formatBytes(limitBytes)}`,
    );
  const requestBytes = limitBytes !== 0n && rounded > limitBytes ? requiredBytes : rounded;
  return { action: 'patch', requestBytes };
}
