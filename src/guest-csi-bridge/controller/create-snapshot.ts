import { hostPvcName } from '../csi/host-pvc-name.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostVolumeSnapshot } from '../host/host-objects.js';
import type { CreateSnapshotRequest, SnapshotMessage } from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import type { ControllerDeps } from './controller-deps.js';
import { createBackupSnapshot } from './create-backup-snapshot.js';
import { hostSnapshotClassFor } from './host-snapshot-class.js';
import {
  CSI_SNAPSHOT_NAME_ANNOTATION,
  isGuestSnapshot,
  planHostSnapshot,
  snapshotMessageOf,
  sourceOf,
} from './plan-host-snapshot.js';
import { BACKUP_SNAPSHOT_TYPE, SNAPSHOT_TYPE_PARAMETER } from './plan-remote-backup.js';
import { snapshotLockKey } from './snapshot-lock-key.js';

/**
 * Why an existing host VolumeSnapshot of the planned name is not the snapshot CreateSnapshot asks
 * for, or undefined when it is (a retry). Pure.
 */
export function snapshotIncompatibility(
  existing: HostVolumeSnapshot,
  csiName: string,
  sourceVolumeId: string,
): string | undefined {
  const name = existing.metadata?.name ?? '';
  if (!isGuestSnapshot(existing))
    return `host VolumeSnapshot ${name} exists and is not a guest volume's snapshot`;
  const madeFor = existing.metadata?.annotations?.[CSI_SNAPSHOT_NAME_ANNOTATION];
  if (name !== csiName && madeFor !== csiName)
    return `host VolumeSnapshot ${name} was not made for snapshot name "${csiName}"`;
  if (sourceOf(existing) !== sourceVolumeId)
    return `snapshot "${csiName}" exists of volume ${sourceOf(existing)}, not ${sourceVolumeId}`;
  return undefined;
}

/** The answer for a host VolumeSnapshot: its CSI Snapshot, or the host's error when it failed. */
function answerOf(snapshot: HostVolumeSnapshot, where: string): { snapshot: SnapshotMessage } {
  const failure = snapshot.status?.error?.message;
  if (failure && snapshot.status?.readyToUse !== true)
    throw new CsiError('CSI_HOST_SNAPSHOT_FAILED', `${where} failed on the host: ${failure}`);
  return { snapshot: snapshotMessageOf(snapshot) };
}

/**
 * CreateSnapshot: a host VolumeSnapshot of the source volume's host PVC, named after the request
 * (as volumes are, see hostPvcName), on the host VolumeSnapshotClass the parameters or the host's
 * csi-driver-config name; with the parameter `type: backup`, a Harvester VolumeRemoteBackup instead
 * (createBackupSnapshot). Not waited for: the answer carries ready_to_use as the host reports it,
 * and csi-snapshotter calls again until it is true. A retry finds the snapshot it made; the same
 * name of another source volume is ALREADY_EXISTS.
 */
export async function createSnapshot(
  deps: ControllerDeps,
  request: CreateSnapshotRequest,
  ctx: CallContext,
): Promise<{ snapshot: SnapshotMessage }> {
  const { name, source_volume_id: sourceVolumeId } = request;
  if (!name) throw new CsiError('CSI_INVALID_ARGUMENT', 'name is required');
  if (!sourceVolumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'source_volume_id is required');
  const parameters = request.parameters ?? {};
  const type = parameters[SNAPSHOT_TYPE_PARAMETER];
  if (type && type !== BACKUP_SNAPSHOT_TYPE)
    throw new CsiError(
      'CSI_INVALID_ARGUMENT',
      `the VolumeSnapshotClass parameter ${SNAPSHOT_TYPE_PARAMETER}: "${type.slice(0, 64)}" is not one this driver knows: "${BACKUP_SNAPSHOT_TYPE}" (a Harvester VolumeRemoteBackup), or none (a host VolumeSnapshot)`,
    );
  const host = deps.hosts.forSecrets(request.secrets, ctx.signal);
  if (type === BACKUP_SNAPSHOT_TYPE)
    return createBackupSnapshot(deps, host, { name, sourceVolumeId, parameters }, ctx);
  const snapshotId = hostPvcName(name);
  const where = `host VolumeSnapshot ${host.namespace}/${snapshotId}`;
  return deps.locks.run(snapshotLockKey(snapshotId), 'CreateSnapshot', async () => {
    const existing = await host.getVolumeSnapshot(snapshotId);
    if (existing) return answerExisting(existing, name, sourceVolumeId, where);
    const pvc = await host.getPvc(sourceVolumeId);
    if (!pvc)
      throw new CsiError(
        'CSI_VOLUME_NOT_FOUND',
        `no host PVC ${host.namespace}/${sourceVolumeId} (the source volume)`,
      );
    const className = await hostSnapshotClassFor(host, parameters, pvc);
    const result = await host.createVolumeSnapshot(
      planHostSnapshot(snapshotId, name, pvc, className),
    );
    if (!result.created) return answerExisting(result.existing, name, sourceVolumeId, where);
    ctx.log.info(
      { snapshotId, sourceVolumeId, hostSnapshotClass: className },
      'created the host VolumeSnapshot',
    );
    return answerOf(result.snapshot, where);
  });
}

function answerExisting(
  existing: HostVolumeSnapshot,
  name: string,
  sourceVolumeId: string,
  where: string,
): { snapshot: SnapshotMessage } {
  if (existing.metadata?.deletionTimestamp)
    throw new CsiError(
      'CSI_SNAPSHOT_BEING_DELETED',
      `${where} is being deleted; retry once it is gone`,
    );
  const why = snapshotIncompatibility(existing, name, sourceVolumeId);
  if (why !== undefined) throw new CsiError('CSI_SNAPSHOT_EXISTS', why);
  return answerOf(existing, where);
}
