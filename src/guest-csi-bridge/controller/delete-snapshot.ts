import { isHostPvcName } from '../csi/host-pvc-name.js';
import { CsiError } from '../errors/csi-error.js';
import type { DeleteSnapshotRequest } from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import type { ControllerDeps } from './controller-deps.js';
import { snapshotLockKey } from './snapshot-lock-key.js';
import { deleteBackupSnapshot } from './delete-backup-snapshot.js';
import { isGuestSnapshot } from './plan-host-snapshot.js';
import { parseBackupSnapshotId } from './plan-remote-backup.js';

/**
 * DeleteSnapshot: deletes the host VolumeSnapshot (the host's snapshot controller then deletes
 * its content, as its deletionPolicy says). A snapshot that is not there, or a host VolumeSnapshot
 * that is no guest volume's (one without the guest labels: never touched), is success. A backup
 * snapshot id (`backup:<namespace>/<name>`) deletes its VolumeRemoteBackup (deleteBackupSnapshot).
 */
export async function deleteSnapshot(
  deps: ControllerDeps,
  request: DeleteSnapshotRequest,
  ctx: CallContext,
): Promise<Record<string, never>> {
  const snapshotId = request.snapshot_id;
  if (!snapshotId) throw new CsiError('CSI_INVALID_ARGUMENT', 'snapshot_id is required');
  const backup = parseBackupSnapshotId(snapshotId);
  if (!backup && !isHostPvcName(snapshotId)) return {};
  const host = deps.hosts.forSecrets(request.secrets, ctx.signal);
  if (backup) return deleteBackupSnapshot(deps, host, backup, ctx);
  return deps.locks.run(snapshotLockKey(snapshotId), 'DeleteSnapshot', async () => {
    const existing = await host.getVolumeSnapshot(snapshotId);
    if (!existing || !isGuestSnapshot(existing) || existing.metadata?.deletionTimestamp) return {};
    if (await host.deleteVolumeSnapshot(snapshotId))
      ctx.log.info(
        { snapshotId, hostSnapshot: `${host.namespace}/${snapshotId}` },
        'deleted the host VolumeSnapshot',
      );
    return {};
  });
}
