import { formatBytes } from '../../kube/index.js';
import type { CapacityRange } from '../csi/capacity-range.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostPvc, HostVolumeSnapshot } from '../host/host-objects.js';
import {
  HOST_STORAGE_CLASS_PARAMETER,
  HOST_VOLUME_MODE_PARAMETER,
  type HostPvcPlan,
  type PlanInput,
} from './plan-host-pvc.js';
import {
  restoreBytesOf,
  SNAP_HOST_SC_LABEL,
  SNAP_HOST_VOLUME_MODE_LABEL,
  SNAPSHOT_API_GROUP,
  SNAPSHOT_KIND,
} from './plan-host-snapshot.js';

/**
 * The plan input of a volume restored from the host VolumeSnapshot `snapshot` (pure): on the host
 * StorageClass and in the volumeMode its labels record (the source PVC's, as Harvester's driver
 * restores), of at least its restoreSize: a request that names no size gets the restoreSize, one
 * below it is CSI_CAPACITY_OUT_OF_RANGE (the host's provisioner would refuse it).
 */
export function restoreInput(input: PlanInput, snapshot: HostVolumeSnapshot): PlanInput {
  const labels = snapshot.metadata?.labels ?? {};
  const restoreBytes = restoreBytesOf(snapshot) ?? 0n;
  const asked = input.capacity.requiredBytes;
  if (asked !== 0n && asked < restoreBytes)
    throw new CsiError(
      'CSI_CAPACITY_OUT_OF_RANGE',
      `required_bytes ${asked} is below the size of snapshot ${snapshot.metadata?.name ?? ''} (${formatBytes(restoreBytes)}); a restored volume is at least that large`,
    );
  const capacity: CapacityRange = {
    ...input.capacity,
    requiredBytes: asked === 0n ? restoreBytes : asked,
  };
  const parameters = { ...input.parameters };
  const className = labels[SNAP_HOST_SC_LABEL];
  if (className) parameters[HOST_STORAGE_CLASS_PARAMETER] = className;
  parameters[HOST_VOLUME_MODE_PARAMETER] =
    labels[SNAP_HOST_VOLUME_MODE_LABEL] === 'Filesystem' ? 'filesystem' : 'block';
  return { ...input, capacity, parameters };
}

/** The plan with the snapshot as the host PVC's dataSource (pure). */
export function withSnapshotSource(plan: HostPvcPlan, snapshotId: string): HostPvcPlan {
  return {
    ...plan,
    body: {
      ...plan.body,
      spec: {
        ...plan.body.spec,
        dataSource: { apiGroup: SNAPSHOT_API_GROUP, kind: SNAPSHOT_KIND, name: snapshotId },
      },
    },
  };
}

/** Why an existing host PVC is not the restore of `snapshotId` asked for (another or no source), or undefined. Pure. */
export function sourceIncompatibility(
  existing: HostPvc,
  snapshotId: string | undefined,
): string | undefined {
  const source = existing.spec?.dataSource;
  const existingSnapshot =
    source?.kind === SNAPSHOT_KIND && source.apiGroup === SNAPSHOT_API_GROUP
      ? source.name
      : undefined;
  if (existingSnapshot === snapshotId) return undefined;
  const name = existing.metadata?.name ?? '';
  return existingSnapshot === undefined
    ? `host PVC ${name} exists and was not restored from snapshot ${snapshotId}`
    : `host PVC ${name} was restored from snapshot ${existingSnapshot}${snapshotId ? `, not ${snapshotId}` : ''}`;
}
