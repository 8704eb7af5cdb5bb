import type { HostApi } from '../host/host-api.js';
import type { CallContext } from '../server/call-context.js';
import type { ControllerDeps } from './controller-deps.js';
import { snapshotLockKey } from './snapshot-lock-key.js';
import { backupSnapshotId, isGuestBackup } from './plan-remote-backup.js';

/**
 * DeleteSnapshot of a backup snapshot: deletes the VolumeRemoteBackup (Harvester's driver,
 * handleBackupSnapDeletion; Harvester's garbage collection then removes the VolumeSnapshot it cut,
 * whose class's deletionPolicy says whether the backup goes). A backup that is not there, one
 * of another host namespace, or one without the guest label is success and left alone.
 */
export async function deleteBackupSnapshot(
  deps: ControllerDeps,
  host: HostApi,
  backup: { namespace: string; name: string },
  ctx: CallContext,
): Promise<Record<string, never>> {
  if (backup.namespace !== host.namespace) return {};
  const id = backupSnapshotId(backup.namespace, backup.name);
  return deps.locks.run(snapshotLockKey(id), 'DeleteSnapshot', async () => {
    const existing = await host.getRemoteBackup(backup.name);
    if (!existing || !isGuestBackup(existing) || existing.metadata?.deletionTimestamp) return {};
    if (await host.deleteRemoteBackup(backup.name))
      ctx.log.info({ snapshotId: id }, 'deleted the host VolumeRemoteBackup');
    return {};
  });
}
