import { isHostPvcName } from '../csi/host-pvc-name.js';
import { CsiError } from '../errors/csi-error.js';
import type { DeleteVolumeRequest } from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import type { ControllerDeps } from './controller-deps.js';
import { isShareablePvc } from './plan-share.js';

/**
 * DeleteVolume: deletes the volume's VolumeRemoteRestore when it was restored from a backup
 * snapshot (as Harvester's driver does, deleteVolumeRemoteRestoreIfExists: Harvester then keeps
 * the backup and removes the restore's VolumeSnapshot), the NetworkFilesystem of its Longhorn
 * volume when it is a share (as Harvester's driver), then the host PVC; a volume that is not
 * there (deleted before, or never made) is success.
 */
export async function deleteVolume(
  deps: ControllerDeps,
  request: DeleteVolumeRequest,
  ctx: CallContext,
): Promise<Record<string, never>> {
  const volumeId = request.volume_id;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  // An id no PVC can have names no volume: nothing to delete.
  if (!isHostPvcName(volumeId)) return {};
  const host = deps.hosts.forSecrets(request.secrets, ctx.signal);
  return deps.locks.run(volumeId, 'DeleteVolume', async () => {
    if (await host.deleteRemoteRestore(volumeId))
      ctx.log.info(
        { volumeId, hostRestore: `${host.namespace}/${volumeId}` },
        'deleted the host VolumeRemoteRestore',
      );
    const pvc = await host.getPvc(volumeId);
    const pvName = pvc?.spec?.volumeName ?? '';
    if (
      isShareablePvc(pvc) &&
      (await host.networkFilesystemsServed()) &&
      (await host.deleteNetworkFilesystem(pvName))
    )
      ctx.log.info({ volumeId, networkFilesystem: pvName }, 'deleted the NetworkFilesystem');
    if (await host.deletePvc(volumeId))
      ctx.log.info({ volumeId, hostPvc: `${host.namespace}/${volumeId}` }, 'deleted the host PVC');
    return {};
  });
}
