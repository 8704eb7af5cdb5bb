import { parseQuantityCeil } from '../../kube/index.js';
import type { HostPvc, HostVolumeSnapshot } from '../host/host-objects.js';
import type { SnapshotMessage } from '../proto/csi-messages.js';

/**
 * The labels Harvester's driver writes on the host VolumeSnapshots it makes (its
 * controller_server.go: `harvesterhci.io/snapHostSC`, `harvesterhci.io/snapHostVolumeMode`),
 * which a restore reads back: snapshots made by either driver restore with the other, and a
 * VolumeSnapshot without them is none of a guest driver's.
 */
export const SNAP_HOST_SC_LABEL = 'harvesterhci.io/snapHostSC';
export const SNAP_HOST_VOLUME_MODE_LABEL = 'harvesterhci.io/snapHostVolumeMode';
/** The CreateSnapshot name a host VolumeSnapshot was made for, when its name had to be derived from it. */
export const CSI_SNAPSHOT_NAME_ANNOTATION = 'voe.harvesterhci.io/csi-snapshot-name';
/** The API group and kind a restored host PVC's dataSource names. */
export const SNAPSHOT_API_GROUP = 'snapshot.storage.k8s.io';
export const SNAPSHOT_KIND = 'VolumeSnapshot';

/**
 * The host VolumeSnapshot CreateSnapshot makes (pure): named `snapshotId`, of the host PVC, on the
 * host VolumeSnapshotClass `className`, labelled with the PVC's StorageClass and volumeMode as
 * Harvester's driver labels them (a PVC without a volumeMode is Block, as there).
 */
export function planHostSnapshot(
  snapshotId: string,
  csiName: string,
  pvc: HostPvc,
  className: string,
): HostVolumeSnapshot {
  const labels: Record<string, string> = {
    [SNAP_HOST_SC_LABEL]: pvc.spec?.storageClassName ?? '',
    [SNAP_HOST_VOLUME_MODE_LABEL]: pvc.spec?.volumeMode ?? 'Block',
  };
  return {
    metadata: {
      name: snapshotId,
      labels,
      ...(snapshotId !== csiName
        ? { annotations: { [CSI_SNAPSHOT_NAME_ANNOTATION]: csiName } }
        : {}),
    },
    spec: {
      source: { persistentVolumeClaimName: pvc.metadata?.name ?? '' },
      volumeSnapshotClassName: className,
    },
  };
}

/** Whether the host VolumeSnapshot is a guest driver's (it carries both labels above). */
export function isGuestSnapshot(snapshot: HostVolumeSnapshot): boolean {
  const labels = snapshot.metadata?.labels ?? {};
  return SNAP_HOST_SC_LABEL in labels && SNAP_HOST_VOLUME_MODE_LABEL in labels;
}

/** The host PVC a guest snapshot was taken of. */
export function sourceOf(snapshot: HostVolumeSnapshot): string {
  return snapshot.spec?.source?.persistentVolumeClaimName ?? '';
}

/** The size a volume restored from the snapshot needs (its status.restoreSize), when known. */
export function restoreBytesOf(snapshot: HostVolumeSnapshot): bigint | undefined {
  const size = snapshot.status?.restoreSize;
  return size ? parseQuantityCeil(size) : undefined;
}

/** `google.protobuf.Timestamp` of an RFC 3339 time (whole seconds, as the API server writes them). */
export function timestampOf(time: string | undefined): SnapshotMessage['creation_time'] {
  const ms = time ? Date.parse(time) : NaN;
  if (Number.isNaN(ms)) return null;
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

/**
 * The CSI Snapshot of a host VolumeSnapshot (pure): its name as the id, its source PVC as the
 * source volume, status.restoreSize as the size (0 until known), status.readyToUse, and the time
 * the storage cut it (status.creationTime; until the host writes it, the object's creation).
 */
export function snapshotMessageOf(snapshot: HostVolumeSnapshot): SnapshotMessage {
  return {
    snapshot_id: snapshot.metadata?.name ?? '',
    source_volume_id: sourceOf(snapshot),
    size_bytes: String(restoreBytesOf(snapshot) ?? 0n),
    creation_time: timestampOf(
      snapshot.status?.creationTime ?? snapshot.metadata?.creationTimestamp,
    ),
    ready_to_use: snapshot.status?.readyToUse === true,
  };
}
