import { mkdir } from 'node:fs/promises';
import { isFsResizeError } from '../../fsresize/index.js';
import { checkSupported, isShared, requireCapability } from '../csi/volume-capability.js';
import { CsiError } from '../errors/csi-error.js';
import type { NodeStageVolumeRequest, NodeUnstageVolumeRequest } from '../proto/csi-messages.js';
import { withWaitSignal, type CallContext } from '../server/call-context.js';
import type { NodeDeps } from './node-deps.js';
import { stageShare } from './stage-share.js';

/** The volume's device, waited for (a disk just hotplugged may not have its by-id link yet). */
export async function deviceOf(
  deps: NodeDeps,
  volumeId: string,
  ctx: CallContext,
): Promise<string> {
  const device = await withWaitSignal(ctx, deps.timeouts.deviceMs, (signal) =>
    deps.locator.waitFor(volumeId, signal),
  );
  if (device === undefined)
    throw new CsiError(
      'CSI_DEVICE_NOT_FOUND',
      `no device of volume ${volumeId} on this node (no /dev/disk/by-id entry names it): is it published to this node?`,
    );
  return device;
}

/**
 * NodeStageVolume: for a mount volume, the device formatted when blank (fs_type, else the driver's default, ext4 unless told)
 * and mounted at the staging path, then its filesystem grown to the device (catching up with a
 * growth made while it was not mounted). A block volume needs no staging; a shared volume's NFS
 * share is mounted (stageShare). Idempotent: a staging
 * path that already shows the device is success.
 */
export async function stageVolume(
  deps: NodeDeps,
  request: NodeStageVolumeRequest,
  ctx: CallContext,
): Promise<Record<string, never>> {
  const { volume_id: volumeId, staging_target_path: staging } = request;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  if (!staging) throw new CsiError('CSI_INVALID_ARGUMENT', 'staging_target_path is required');
  const capability = requireCapability(request.volume_capability, 'volume_capability');
  checkSupported(capability, 'volume_capability');
  if (capability.accessType === 'block') return {};
  if (isShared(capability)) return stageShare(deps, request, ctx);
  return deps.locks.run(volumeId, 'NodeStageVolume', async () => {
    const device = await deviceOf(deps, volumeId, ctx);
    const id = await deps.devices.identify(device);
    const mounted = await deps.mounter.mountAt(staging);
    if (mounted !== null) {
      if (mounted.majorMinor === id.majorMinor) return {};
      throw new CsiError(
        'CSI_MOUNT_FAILED',
        `staging path ${staging} already shows another filesystem (${mounted.source}, ${mounted.majorMinor}), not volume ${volumeId}'s device ${device}`,
      );
    }
    const fsType = capability.fsType || deps.defaultFsType;
    const inspection = await deps.resizer.inspect(device);
    if (inspection.partitionTable !== null)
      throw new CsiError(
        'CSI_MOUNT_FAILED',
        `${device} holds a ${inspection.partitionTable} partition table; the driver formats only blank disks and mounts whole-disk filesystems`,
      );
    if (inspection.filesystem === null) {
      await deps.mounter.format(device, fsType);
      ctx.log.info({ volumeId, device, fsType }, 'formatted the blank volume');
    } else if (inspection.filesystem !== fsType) {
      throw new CsiError(
        'CSI_MOUNT_FAILED',
        `${device} already holds ${inspection.filesystem}, not the ${fsType} the volume capability asks for`,
      );
    }
    await mkdir(staging, { recursive: true });
    const options = [...capability.mountFlags];
    if (capability.accessMode === 'SINGLE_NODE_READER_ONLY') options.push('ro');
    await deps.mounter.mount(device, staging, fsType, options);
    if (capability.accessMode !== 'SINGLE_NODE_READER_ONLY') {
      try {
        const grown = await deps.resizer.grow(device, { mountPath: staging, signal: ctx.signal });
        if (grown.action === 'grown')
          ctx.log.info(
            { volumeId, device, reason: grown.reason },
            'grew the filesystem to its device',
          );
      } catch (error) {
        // The volume is usable at its former size; kubelet asks for the growth again (NodeExpandVolume).
        if (!isFsResizeError(error)) throw error;
        ctx.log.warn(
          { volumeId, device, code: error.code, err: error.message },
          'could not grow the filesystem after mounting it',
        );
      }
    }
    return {};
  });
}

/** NodeUnstageVolume: unmounts the staging path (success when nothing is mounted there). */
export async function unstageVolume(
  deps: NodeDeps,
  request: NodeUnstageVolumeRequest,
): Promise<Record<string, never>> {
  const { volume_id: volumeId, staging_target_path: staging } = request;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  if (!staging) throw new CsiError('CSI_INVALID_ARGUMENT', 'staging_target_path is required');
  return deps.locks.run(volumeId, 'NodeUnstageVolume', async () => {
    await deps.mounter.unmount(staging);
    return {};
  });
}
