import { mkdir } from 'node:fs/promises';
import {
  isShareablePvc,
  shareMount,
  shareMountFromContext,
  shareReady,
} from '../controller/plan-share.js';
import type { HostApi } from '../host/host-api.js';
import { CsiError } from '../errors/csi-error.js';
import type { NodeStageVolumeRequest } from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import type { NodeDeps } from './node-deps.js';

/**
 * The NFS mount of a shared volume read from the host, as Harvester's nodeStageRWXVolume reads it:
 * the host PVC, then the NetworkFilesystem of its Longhorn volume, whose endpoint must be Ready
 * (CSI_SHARE_NOT_READY, UNAVAILABLE, otherwise: kubelet retries).
 */
async function shareMountOnHost(
  host: HostApi,
  volumeId: string,
): Promise<{ source: string; options: string[] }> {
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
  return shareMount(share, pvName);
}

/**
 * NodeStageVolume of a shared (RWX) volume: mounts its NFS export (`<endpoint>:/<volume>`, type
 * nfs, the share's mount options, else NFSv4, as Harvester's nodeStageRWXVolume mounts it) at the
 * staging path through the Mounter. The export is the one ControllerPublishVolume put in
 * publish_context; without it (a volume Harvester's driver published), it is read from the host,
 * which needs host credentials. Idempotent: a staging path that already shows that export is
 * success.
 */
export async function stageShare(
  deps: NodeDeps,
  request: NodeStageVolumeRequest,
  ctx: CallContext,
): Promise<Record<string, never>> {
  const { volume_id: volumeId, staging_target_path: staging } = request;
  const published = shareMountFromContext(request.publish_context);
  if (published === undefined && deps.hosts === undefined)
    throw new CsiError(
      'CSI_UNSUPPORTED_CAPABILITY',
      `volume ${volumeId} is shared (an NFS share) and its publish_context names no export: this node plugin has no host credentials to find its NetworkFilesystem`,
    );
  return deps.locks.run(volumeId, 'NodeStageVolume', async () => {
    const { source, options } =
      published ??
      (await shareMountOnHost(deps.hosts!.forSecrets(request.secrets, ctx.signal), volumeId));
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
