import { mkdir } from 'node:fs/promises';
import { isShareablePvc, shareMount, shareReady } from '../controller/plan-share.js';
import { CsiError } from '../errors/csi-error.js';
import type { NodeStageVolumeRequest } from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import type { NodeDeps } from './node-deps.js';

/**
 * NodeStageVolume of a shared (RWX) volume, as Harvester's nodeStageRWXVolume: reads the host PVC
 * and the NetworkFilesystem of its Longhorn volume, and mounts its NFS export
 * (`<endpoint>:/<volume>`, type nfs, its mount options, else NFSv4) at the staging path through
 * the Mounter. CSI_SHARE_NOT_READY (UNAVAILABLE, kubelet retries) while the endpoint is not
 * Ready. Idempotent: a staging path that already shows that export is success.
 */
export async function stageShare(
  deps: NodeDeps,
  request: NodeStageVolumeRequest,
  ctx: CallContext,
): Promise<Record<string, never>> {
  const { volume_id: volumeId, staging_target_path: staging } = request;
  if (deps.hosts === undefined)
    throw new CsiError(
      'CSI_UNSUPPORTED_CAPABILITY',
      `volume ${volumeId} is shared (an NFS share): this node plugin has no host credentials to find its NetworkFilesystem`,
    );
  const host = deps.hosts.forSecrets(request.secrets, ctx.signal);
  return deps.locks.run(volumeId, 'NodeStageVolume', async () => {
    const pvc = await host.getPvc(volumeId);
    if (!pvc)
      throw new CsiError(
        'CSI_VOLUME_NOT_FOUND',
        `host PVC ${host.namespace}/${volumeId} does not exist`,
      );
    if (!isShareablePvc(pvc))
      throw new CsiError(
        'CSI_UNSUPPORTED_CAPABILITY',
        `volume ${volumeId} is not a shared volume (host PVC ${host.namespace}/${volumeId} is not a bound Filesystem-mode ReadWriteMany PVC)`,
      );
    const pvName = pvc.spec?.volumeName ?? '';
    const share = await host.getNetworkFilesystem(pvName);
    if (!share || !shareReady(share))
      throw new CsiError(
        'CSI_SHARE_NOT_READY',
        `the NFS share of volume ${volumeId} is not exported (NetworkFilesystem harvester-system/${pvName} ${share ? `reports ${share.status?.status ?? 'no status'}` : 'does not exist'}); retry once it is Ready`,
      );
    const { source, options } = shareMount(share, pvName);
    const mounted = await deps.mounter.mountAt(staging);
    if (mounted !== null) {
      if (mounted.source === source) return {};
      throw new CsiError(
        'CSI_MOUNT_FAILED',
        `staging path ${staging} already shows ${mounted.source}, not volume ${volumeId}'s NFS share ${source}`,
      );
    }
    await mkdir(staging, { recursive: true });
    await deps.mounter.mount(source, staging, 'nfs', options);
    ctx.log.info({ volumeId, source, staging }, 'mounted the NFS share');
    return {};
  });
}
