import { formatBytes } from '../../kube/index.js';
import type { CapacityRange } from '../csi/capacity-range.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import type { HostPvc, HostRemoteBackup, HostRemoteRestore } from '../host/host-objects.js';
import type { VolumeMessage } from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import {
  backupBytesOf,
  backupSnapshotId,
  harvesterFailureOf,
  isGuestBackup,
  planRemoteRestore,
} from './plan-remote-backup.js';
import { requestBytesOf } from './pvc-sizes.js';

export interface BackupRestoreRequest {
  volumeId: string;
  backup: { namespace: string; name: string };
  capacity: CapacityRange;
  parameters: Record<string, string>;
}

/** The guest backup the snapshot id names, ready; CSI_SNAPSHOT_NOT_FOUND or CSI_RESTORE_PENDING otherwise. */
async function readReadyBackup(
  host: HostApi,
  backup: BackupRestoreRequest['backup'],
): Promise<HostRemoteBackup> {
  const id = backupSnapshotId(backup.namespace, backup.name);
  const found =
    backup.namespace === host.namespace ? await host.getRemoteBackup(backup.name) : undefined;
  if (!found || !isGuestBackup(found) || found.metadata?.deletionTimestamp)
    throw new CsiError(
      'CSI_SNAPSHOT_NOT_FOUND',
      `no backup snapshot ${id} (a guest VolumeRemoteBackup in the host namespace ${host.namespace})`,
    );
  if (found.status?.success !== true)
    throw new CsiError(
      'CSI_RESTORE_PENDING',
      `backup snapshot ${id} is not ready yet; retry once it is`,
    );
  return found;
}

/**
 * The size of a volume restored from the backup (pure): Harvester restores the source PVC's
 * request as it recorded it (status.sourceSpec), whatever the request asks, so a request above
 * it, or a limit below it, is CSI_CAPACITY_OUT_OF_RANGE.
 */
export function backupRestoreBytes(backup: HostRemoteBackup, capacity: CapacityRange): bigint {
  const bytes = backupBytesOf(backup) ?? 0n;
  const id = backupSnapshotId(backup.metadata?.namespace ?? '', backup.metadata?.name ?? '');
  if (capacity.requiredBytes > bytes)
    throw new CsiError(
      'CSI_CAPACITY_OUT_OF_RANGE',
      `required_bytes ${capacity.requiredBytes} is above the size of backup snapshot ${id} (${formatBytes(bytes)}): Harvester restores a backup at the size of the volume it was taken of; restore it at that size, then expand the volume`,
    );
  if (capacity.limitBytes !== 0n && capacity.limitBytes < bytes)
    throw new CsiError(
      'CSI_CAPACITY_OUT_OF_RANGE',
      `limit_bytes ${capacity.limitBytes} is below the size of backup snapshot ${id} (${formatBytes(bytes)})`,
    );
  return bytes;
}

/** Why an existing VolumeRemoteRestore of the volume's name is not this restore, or undefined (pure). */
export function restoreIncompatibility(
  existing: HostRemoteRestore,
  backup: BackupRestoreRequest['backup'],
): string | undefined {
  const from = existing.spec?.from ?? '';
  return from === `${backup.namespace}/${backup.name}`
    ? undefined
    : `host VolumeRemoteRestore ${existing.metadata?.name ?? ''} restores ${from}, not ${backup.namespace}/${backup.name}`;
}

/** Whether the VolumeRemoteRestore made (owns) the PVC, as Harvester's restore controller makes it. */
function madeBy(pvc: HostPvc, restore: HostRemoteRestore): boolean {
  return (pvc.metadata?.ownerReferences ?? []).some(
    (o) => o.kind === 'VolumeRemoteRestore' && o.uid === restore.metadata?.uid,
  );
}

/** A new VolumeRemoteRestore of the volume, from the backup (ready, and of a size the request allows); its size. */
async function startRestore(
  host: HostApi,
  request: BackupRestoreRequest,
  ctx: CallContext,
): Promise<{ restore: HostRemoteRestore; bytes: bigint }> {
  const { volumeId, backup } = request;
  const source = await readReadyBackup(host, backup);
  const bytes = backupRestoreBytes(source, request.capacity);
  // Harvester's restore controller takes a PVC of the restore's name for its own (createOrGet).
  if (await host.getPvc(volumeId))
    throw new CsiError(
      'CSI_VOLUME_EXISTS',
      `host PVC ${host.namespace}/${volumeId} exists and was not restored from backup ${backup.namespace}/${backup.name}`,
    );
  const result = await host.createRemoteRestore(planRemoteRestore(volumeId, backup));
  if (result.created)
    ctx.log.info(
      { volumeId, backup: `${backup.namespace}/${backup.name}` },
      'created the host VolumeRemoteRestore',
    );
  return { restore: result.created ? result.restore : result.existing, bytes };
}

/**
 * CreateVolume from a backup snapshot: a Harvester VolumeRemoteRestore named after the volume,
 * from the backup (Harvester's driver, buildHostVolumeRemoteRestore), whose controller makes the
 * host PVC of that name (pkg/volumeremotebackup/longhorn/restore.go, createPVCFromSnapshot). The
 * answer comes once that PVC exists: before, ABORTED (CSI_RESTORE_PENDING) and the provisioner
 * retries; an error Harvester reports on the restore is CSI_HOST_RESTORE_FAILED. A retry finds
 * the restore it made (and answers its PVC's size, the backup may be gone by then); the name of
 * another restore or of another volume, or a size above the restored one, is ALREADY_EXISTS.
 */
export async function restoreFromBackup(
  host: HostApi,
  request: BackupRestoreRequest,
  ctx: CallContext,
): Promise<{ volume: VolumeMessage }> {
  const { volumeId, backup } = request;
  const where = `host VolumeRemoteRestore ${host.namespace}/${volumeId}`;
  const existing = await host.getRemoteRestore(volumeId);
  const started = existing ? { restore: existing } : await startRestore(host, request, ctx);
  const { restore } = started;
  if (restore.metadata?.deletionTimestamp)
    throw new CsiError(
      'CSI_VOLUME_BEING_DELETED',
      `${where} is being deleted; retry once it is gone`,
    );
  const why = restoreIncompatibility(restore, backup);
  if (why !== undefined) throw new CsiError('CSI_VOLUME_EXISTS', why);
  const failure = harvesterFailureOf(restore);
  if (failure !== undefined)
    throw new CsiError('CSI_HOST_RESTORE_FAILED', `${where} failed on the host: ${failure}`);
  const pvc = await host.getPvc(volumeId);
  if (!pvc)
    throw new CsiError(
      'CSI_RESTORE_PENDING',
      `Harvester has not made host PVC ${host.namespace}/${volumeId} of ${where} yet; retry`,
    );
  if (!madeBy(pvc, restore))
    throw new CsiError(
      'CSI_VOLUME_EXISTS',
      `host PVC ${host.namespace}/${volumeId} exists and was not made by ${where}`,
    );
  const bytes = ('bytes' in started ? started.bytes : requestBytesOf(pvc)) ?? 0n;
  if (request.capacity.requiredBytes > bytes)
    throw new CsiError(
      'CSI_VOLUME_EXISTS',
      `volume ${volumeId} was restored from backup ${backup.namespace}/${backup.name} at ${formatBytes(bytes)}, below required_bytes ${request.capacity.requiredBytes}`,
    );
  return {
    volume: {
      volume_id: volumeId,
      capacity_bytes: String(bytes),
      volume_context: { ...request.parameters },
      content_source: {
        snapshot: { snapshot_id: backupSnapshotId(backup.namespace, backup.name) },
      },
    },
  };
}
