import { hostPvcName } from '../csi/host-pvc-name.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import type { HostRemoteBackup, HostVolumeSnapshot } from '../host/host-objects.js';
import type { SnapshotMessage } from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import type { ControllerDeps } from './controller-deps.js';
import { snapshotLockKey } from './snapshot-lock-key.js';
import { HOST_SNAPSHOT_CLASS_PARAMETER } from './host-snapshot-class.js';
import {
  backupIncompatibility,
  backupMessageOf,
  backupSnapshotId,
  harvesterFailureOf,
  planRemoteBackup,
} from './plan-remote-backup.js';

export interface BackupSnapshotRequest {
  name: string;
  sourceVolumeId: string;
  parameters: Record<string, string>;
}

/** The answer for a VolumeRemoteBackup: its CSI Snapshot, or the error Harvester reports on it. */
function answerOf(backup: HostRemoteBackup, where: string): { snapshot: SnapshotMessage } {
  const failure = harvesterFailureOf(backup);
  if (failure !== undefined)
    throw new CsiError('CSI_HOST_SNAPSHOT_FAILED', `${where} failed on the host: ${failure}`);
  return { snapshot: backupMessageOf(backup) };
}

function answerExisting(
  existing: HostRemoteBackup,
  request: BackupSnapshotRequest,
  where: string,
): { snapshot: SnapshotMessage } {
  if (existing.metadata?.deletionTimestamp)
    throw new CsiError(
      'CSI_SNAPSHOT_BEING_DELETED',
      `${where} is being deleted; retry once it is gone`,
    );
  const why = backupIncompatibility(existing, request.name, request.sourceVolumeId);
  if (why !== undefined) throw new CsiError('CSI_SNAPSHOT_EXISTS', why);
  return answerOf(existing, where);
}

/** A 404 on creating one: the host does not serve the kind (its CRD comes with Harvester v1.8). */
function unservedOr(error: unknown): unknown {
  if (!(error instanceof CsiError) || error.details?.['httpStatus'] !== 404) return error;
  return new CsiError(
    'CSI_HOST_BACKUPS_UNSERVED',
    `the host does not serve VolumeRemoteBackups (harvesterhci.io/v1beta1, from Harvester v1.8): backup snapshots need it; take host VolumeSnapshots instead (no type parameter)`,
    { cause: error },
  );
}

/** Whether a VolumeRemoteBackup owns the host VolumeSnapshot (the one Harvester cut for it, left until the garbage collector takes it). */
function ownedByBackup(snapshot: HostVolumeSnapshot): boolean {
  return (snapshot.metadata?.ownerReferences ?? []).some((o) => o.kind === 'VolumeRemoteBackup');
}

/**
 * Harvester's backup controller cuts its VolumeSnapshot under the backup's name in the same
 * namespace (pkg/volumeremotebackup/longhorn/backup.go, ensureVolumeSnapshotExists) and would take
 * one already there for it: such a name is ALREADY_EXISTS (ABORTED while a deleted backup's
 * snapshot waits for the garbage collector).
 */
async function checkSnapshotNameFree(host: HostApi, name: string): Promise<void> {
  const clash = await host.getVolumeSnapshot(name);
  if (!clash) return;
  const where = `host VolumeSnapshot ${host.namespace}/${name}`;
  if (ownedByBackup(clash))
    throw new CsiError(
      'CSI_SNAPSHOT_BEING_DELETED',
      `${where} of a deleted backup is still there; retry once it is gone`,
    );
  throw new CsiError(
    'CSI_SNAPSHOT_EXISTS',
    `${where} exists: Harvester would take it for the backup's own snapshot; use another name`,
  );
}

/**
 * CreateSnapshot with `type: backup`: a Harvester VolumeRemoteBackup of the source volume's host
 * PVC (Harvester's driver, handleBackupSnap), named after the request as volumes are. Not waited
 * for: the answer carries ready_to_use (its status.success) and csi-snapshotter calls again until
 * it is true. The backup's VolumeSnapshotClass is Harvester's choice (csi-driver-config's
 * backupVolumeSnapshotClassName), so `hostSnapshotClass` is refused. A retry finds the backup it
 * made; the same name of another source volume is ALREADY_EXISTS.
 */
export async function createBackupSnapshot(
  deps: ControllerDeps,
  host: HostApi,
  request: BackupSnapshotRequest,
  ctx: CallContext,
): Promise<{ snapshot: SnapshotMessage }> {
  if (request.parameters[HOST_SNAPSHOT_CLASS_PARAMETER])
    throw new CsiError(
      'CSI_INVALID_ARGUMENT',
      `the VolumeSnapshotClass parameter ${HOST_SNAPSHOT_CLASS_PARAMETER} does not apply to backup snapshots: Harvester takes a backup on the backupVolumeSnapshotClassName its Setting csi-driver-config maps the volume's provisioner to`,
    );
  const name = hostPvcName(request.name);
  const where = `host VolumeRemoteBackup ${host.namespace}/${name}`;
  const id = backupSnapshotId(host.namespace, name);
  return deps.locks.run(snapshotLockKey(id), 'CreateSnapshot', async () => {
    const existing = await host.getRemoteBackup(name);
    if (existing) return answerExisting(existing, request, where);
    const pvc = await host.getPvc(request.sourceVolumeId);
    if (!pvc)
      throw new CsiError(
        'CSI_VOLUME_NOT_FOUND',
        `no host PVC ${host.namespace}/${request.sourceVolumeId} (the source volume)`,
      );
    await checkSnapshotNameFree(host, name);
    const result = await host
      .createRemoteBackup(planRemoteBackup(name, request.name, request.sourceVolumeId))
      .catch((error: unknown) => {
        throw unservedOr(error);
      });
    if (!result.created) return answerExisting(result.existing, request, where);
    ctx.log.info(
      { snapshotId: id, sourceVolumeId: request.sourceVolumeId },
      'created the host VolumeRemoteBackup',
    );
    return answerOf(result.backup, where);
  });
}
