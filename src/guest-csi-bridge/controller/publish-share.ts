import { isConflict } from '../../kube/index.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import { hostFailure } from '../host/host-failure.js';
import type { HostNetworkFilesystem, HostPvc } from '../host/host-objects.js';
import { withWaitSignal, type CallContext } from '../server/call-context.js';
import type { ControllerDeps } from './controller-deps.js';
import {
  isShareablePvc,
  networkFilesystemFor,
  sharePublishContext,
  shareReady,
  sharePublishPatch,
  shareUnpublishPatch,
  type SharePatch,
} from './plan-share.js';
import { waitUntilBound } from './wait-until-bound.js';

/** How often a NetworkFilesystem changed between its read and the guarded patch is read and patched again. */
const PATCH_ATTEMPTS = 3;

/** The NetworkFilesystem `name` with `patchFor(current)` applied (re-read on a conflict); the one read when there is nothing to change. */
async function patchShare(
  host: HostApi,
  share: HostNetworkFilesystem,
  patchFor: (share: HostNetworkFilesystem) => SharePatch | undefined,
): Promise<HostNetworkFilesystem | undefined> {
  const name = share.metadata?.name ?? '';
  let current: HostNetworkFilesystem | undefined = share;
  for (let attempt = 1; current; attempt++) {
    const patch = patchFor(current);
    if (patch === undefined) return current;
    try {
      return await host.patchNetworkFilesystem(name, patch);
    } catch (error) {
      if (!isConflict(error) || attempt >= PATCH_ATTEMPTS)
        throw hostFailure(error, `updating NetworkFilesystem harvester-system/${name}`);
    }
    current = await host.getNetworkFilesystem(name);
  }
  return undefined;
}

/** The share of a bound host PVC: its NetworkFilesystem, made (disabled) when missing, as Harvester's publishRWXVolume does. */
async function shareOf(
  host: HostApi,
  pvc: HostPvc,
  ctx: CallContext,
): Promise<HostNetworkFilesystem> {
  const pvName = pvc.spec?.volumeName ?? '';
  const existing = await host.getNetworkFilesystem(pvName);
  if (existing) return existing;
  const result = await host.createNetworkFilesystem(networkFilesystemFor(pvName));
  if (result.created) {
    ctx.log.info(
      { networkFilesystem: pvName },
      'created the NetworkFilesystem of the shared volume',
    );
    return result.networkFilesystem;
  }
  return result.existing;
}

/**
 * ControllerPublishVolume of a shared (RWX) volume: nothing is hotplugged. Once the host PVC is
 * bound, its Longhorn volume's NetworkFilesystem (made when missing) lists the node and is asked
 * Enabled (networkfs-manager then has Longhorn's share manager export it over NFS); answers once
 * it reports its endpoint Ready, with the NFS export and its mount options in publish_context
 * (for NodeStageVolume), or CSI_SHARE_NOT_READY after the hotplug timeout (the attacher retries). A host PVC that cannot back a share (Block mode, not ReadWriteMany) is
 * CSI_UNSUPPORTED_CAPABILITY.
 */
export async function publishShare(
  deps: ControllerDeps,
  host: HostApi,
  volumeId: string,
  node: string,
  ctx: CallContext,
): Promise<{ publish_context: Record<string, string> }> {
  return deps.locks.run(volumeId, 'ControllerPublishVolume', async () => {
    const found = await host.getPvc(volumeId);
    if (!found || found.metadata?.deletionTimestamp)
      throw new CsiError(
        'CSI_VOLUME_NOT_FOUND',
        `host PVC ${host.namespace}/${volumeId} does not exist`,
      );
    const pvc = await waitUntilBound(host, volumeId, found, ctx, deps.timeouts.hotplugMs);
    if (!isShareablePvc(pvc))
      throw new CsiError(
        'CSI_UNSUPPORTED_CAPABILITY',
        `volume ${volumeId} is not a shared volume (host PVC ${host.namespace}/${volumeId} is ${pvc.spec?.volumeMode ?? 'Filesystem'} mode, ${(pvc.spec?.accessModes ?? []).join(',')}): publish it as a single-node volume`,
      );
    const pvName = pvc.spec?.volumeName ?? '';
    const share = await patchShare(host, await shareOf(host, pvc, ctx), (current) =>
      sharePublishPatch(current, node),
    );
    if (share && shareReady(share)) return { publish_context: sharePublishContext(share, pvName) };
    ctx.log.info({ volumeId, node, networkFilesystem: pvName }, 'enabling the NFS share');
    let ready: HostNetworkFilesystem | undefined;
    try {
      ready = await withWaitSignal(ctx, deps.timeouts.hotplugMs, (signal) =>
        host.waitForNetworkFilesystem(pvName, shareReady, {
          signal,
          start: { object: share, resourceVersion: share?.metadata?.resourceVersion },
        }),
      );
    } catch (error) {
      if (error instanceof CsiError) throw error;
      throw new CsiError(
        'CSI_SHARE_NOT_READY',
        `the NFS share of volume ${volumeId} is not exported yet (NetworkFilesystem harvester-system/${pvName} does not report its endpoint Ready); retry`,
      );
    }
    if (!ready)
      throw new CsiError(
        'CSI_VOLUME_NOT_FOUND',
        `NetworkFilesystem harvester-system/${pvName} of volume ${volumeId} was deleted`,
      );
    return { publish_context: sharePublishContext(ready, pvName) };
  });
}

/**
 * ControllerUnpublishVolume of a shared volume: the node taken off its NetworkFilesystem's
 * published nodes, and the share asked Disabled once no node is left. False (nothing done) when
 * the volume is not a share: no bound Filesystem-mode ReadWriteMany host PVC, or no
 * NetworkFilesystem of its Longhorn volume.
 */
export async function unpublishShare(
  deps: ControllerDeps,
  host: HostApi,
  volumeId: string,
  node: string,
  ctx: CallContext,
): Promise<boolean> {
  return deps.locks.run(volumeId, 'ControllerUnpublishVolume', async () => {
    const pvc = await host.getPvc(volumeId);
    if (!isShareablePvc(pvc)) return false;
    const pvName = pvc?.spec?.volumeName ?? '';
    const share = await host.getNetworkFilesystem(pvName);
    if (!share) return false;
    const after = await patchShare(host, share, (current) => shareUnpublishPatch(current, node));
    if (after?.spec?.desiredState === 'Disabled' && share.spec?.desiredState !== 'Disabled')
      ctx.log.info(
        { volumeId, networkFilesystem: pvName },
        'disabled the NFS share: no node uses it',
      );
    return true;
  });
}
