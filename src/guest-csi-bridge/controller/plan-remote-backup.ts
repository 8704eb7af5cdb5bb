import { parseQuantityCeil } from '../../kube/index.js';
import type { HostRemoteBackup, HostRemoteRestore } from '../host/host-objects.js';
import type { SnapshotMessage } from '../proto/csi-messages.js';
import { CSI_SNAPSHOT_NAME_ANNOTATION, timestampOf } from './plan-host-snapshot.js';

/**
 * Backup snapshots as Harvester's driver makes them (harvester/harvester-csi-driver
 * pkg/csi/controller_server.go, buildHostVolumeRemoteBackup, generateHostVolumeRemoteRestore;
 * pkg/csi/util.go, formatBackupSnapshotID): the VolumeSnapshotClass parameter `type: backup`
 * makes a Harvester VolumeRemoteBackup (harvesterhci.io/v1beta1) of the source PVC instead of a
 * host VolumeSnapshot; its snapshot id is `backup:<namespace>/<name>`; a volume restored from it
 * is a VolumeRemoteRestore named after the volume, whose host PVC (of that name) Harvester makes.
 * Backups made by either driver list, restore and delete with the other.
 */
export const SNAPSHOT_TYPE_PARAMETER = 'type';
export const BACKUP_SNAPSHOT_TYPE = 'backup';
/** The label Harvester's driver writes on its VolumeRemoteBackups: the source volume id. */
export const BACKUP_SOURCE_LABEL = 'harvesterhci.io/backupSourceVolume';
/** The only backup type Harvester serves (`lh`: Longhorn's backup target). */
export const REMOTE_BACKUP_TYPE = 'lh';
/** The message of the Ready condition while Harvester works on it (pkg/volumeremotebackup/common/operator.go, SetProcessing). */
export const HARVESTER_IN_PROGRESS = 'Operation in progress';
export const REMOTE_BACKUP_API_VERSION = 'harvesterhci.io/v1beta1';

const BACKUP_ID_PREFIX = 'backup:';
/** A Kubernetes object name (RFC 1123 subdomain). */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** The snapshot id of a VolumeRemoteBackup: `backup:<namespace>/<name>`. */
export function backupSnapshotId(namespace: string, name: string): string {
  return `${BACKUP_ID_PREFIX}${namespace}/${name}`;
}

/** The namespace and name a backup snapshot id names, or undefined for any other id. Pure. */
export function parseBackupSnapshotId(id: string): { namespace: string; name: string } | undefined {
  if (!id.startsWith(BACKUP_ID_PREFIX)) return undefined;
  const rest = id.slice(BACKUP_ID_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash < 0) return undefined;
  const namespace = rest.slice(0, slash);
  const name = rest.slice(slash + 1);
  return OBJECT_NAME.test(namespace) && OBJECT_NAME.test(name) ? { namespace, name } : undefined;
}

/**
 * The VolumeRemoteBackup CreateSnapshot makes with `type: backup` (pure): named `name` (the
 * request's name as a volume's, see hostPvcName), of the host PVC `sourceVolumeId`, labelled with
 * it as Harvester's driver labels it, type `lh`.
 */
export function planRemoteBackup(
  name: string,
  csiName: string,
  sourceVolumeId: string,
): HostRemoteBackup {
  return {
    metadata: {
      name,
      labels: { [BACKUP_SOURCE_LABEL]: sourceVolumeId },
      ...(name !== csiName ? { annotations: { [CSI_SNAPSHOT_NAME_ANNOTATION]: csiName } } : {}),
    },
    spec: { type: REMOTE_BACKUP_TYPE, source: sourceVolumeId },
  };
}

/** Whether the VolumeRemoteBackup is a guest driver's (it carries the source label). */
export function isGuestBackup(backup: HostRemoteBackup): boolean {
  return BACKUP_SOURCE_LABEL in (backup.metadata?.labels ?? {});
}

/** The source volume of a guest backup (its label, as Harvester's driver reads it). */
export function backupSourceOf(backup: HostRemoteBackup): string {
  return backup.metadata?.labels?.[BACKUP_SOURCE_LABEL] ?? '';
}

/** The size of the backup's source PVC as Harvester recorded it (status.sourceSpec's storage request), when known. */
export function backupBytesOf(backup: HostRemoteBackup): bigint | undefined {
  const size = backup.status?.sourceSpec?.resources?.requests?.['storage'];
  return size ? parseQuantityCeil(size) : undefined;
}

/**
 * The error Harvester reports on a VolumeRemoteBackup or VolumeRemoteRestore, or undefined (pure):
 * its Ready condition False with a message other than the one of work in progress (SetError
 * writes the error there; SetProcessing writes HARVESTER_IN_PROGRESS), while it has not succeeded.
 */
export function harvesterFailureOf(
  object: HostRemoteBackup | HostRemoteRestore,
): string | undefined {
  if (object.status?.success === true) return undefined;
  const ready = object.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'False' || !ready.message || ready.message === HARVESTER_IN_PROGRESS)
    return undefined;
  return ready.message;
}

/**
 * The CSI Snapshot of a guest VolumeRemoteBackup (pure), as Harvester's driver answers it
 * (convertVolumeRemoteBackupToCSI): the id `backup:<namespace>/<name>`, the source label as the
 * source volume, the source PVC's size as Harvester recorded it (0 until it has), the object's
 * creation as the creation time, and status.success as ready_to_use.
 */
export function backupMessageOf(backup: HostRemoteBackup): SnapshotMessage {
  return {
    snapshot_id: backupSnapshotId(backup.metadata?.namespace ?? '', backup.metadata?.name ?? ''),
    source_volume_id: backupSourceOf(backup),
    size_bytes: String(backupBytesOf(backup) ?? 0n),
    creation_time: timestampOf(backup.metadata?.creationTimestamp),
    ready_to_use: backup.status?.success === true,
  };
}

/**
 * Why an existing VolumeRemoteBackup of the planned name is not the backup CreateSnapshot asks
 * for, or undefined when it is (a retry). Pure.
 */
export function backupIncompatibility(
  existing: HostRemoteBackup,
  csiName: string,
  sourceVolumeId: string,
): string | undefined {
  const name = existing.metadata?.name ?? '';
  if (!isGuestBackup(existing))
    return `host VolumeRemoteBackup ${name} exists and is not a guest volume's backup`;
  const madeFor = existing.metadata?.annotations?.[CSI_SNAPSHOT_NAME_ANNOTATION];
  if (name !== csiName && madeFor !== csiName)
    return `host VolumeRemoteBackup ${name} was not made for snapshot name "${csiName}"`;
  if (backupSourceOf(existing) !== sourceVolumeId)
    return `backup snapshot "${csiName}" exists of volume ${backupSourceOf(existing)}, not ${sourceVolumeId}`;
  return undefined;
}

/** The VolumeRemoteRestore of volume `volumeId` from the backup `namespace/name` (pure), as Harvester's driver writes it. */
export function planRemoteRestore(
  volumeId: string,
  backup: { namespace: string; name: string },
): HostRemoteRestore {
  return {
    metadata: { name: volumeId },
    spec: { type: REMOTE_BACKUP_TYPE, from: `${backup.namespace}/${backup.name}` },
  };
}
