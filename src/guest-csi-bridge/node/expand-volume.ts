import { stat, statfs } from 'node:fs/promises';
import { formatBytes } from '../../kube/index.js';
import { readCapacityRange } from '../csi/capacity-range.js';
import { isShared, readCapability } from '../csi/volume-capability.js';
import { CsiError } from '../errors/csi-error.js';
import { capacityBytesOf } from '../controller/pvc-sizes.js';
import type { NodeExpandVolumeRequest } from '../proto/csi-messages.js';
import { withWaitSignal, type CallContext } from '../server/call-context.js';
import type { NodeDeps } from './node-deps.js';
import { grownAboveBaseline, type GrowthTarget } from './device-grown.js';
import { waitForDeviceSize } from './wait-for-device-size.js';

interface ExpandTarget {
  required: bigint;
  hostVolumeMode: GrowthTarget['hostVolumeMode'];
}

/**
 * The size NodeExpandVolume waits for (capacity_range.required_bytes, else the host PVC's
 * capacity) and the host PVC's volumeMode, both read from the host when the node has host
 * credentials (unknown without: the device must then reach the size asked for).
 */
async function expandTarget(
  deps: NodeDeps,
  request: NodeExpandVolumeRequest,
  signal: AbortSignal,
): Promise<ExpandTarget> {
  const { requiredBytes } = readCapacityRange(request.capacity_range);
  if (deps.hosts === undefined) return { required: requiredBytes, hostVolumeMode: undefined };
  const pvc = await deps.hosts.forSecrets(request.secrets, signal).getPvc(request.volume_id);
  const mode = pvc?.spec?.volumeMode;
  return {
    required: requiredBytes > 0n ? requiredBytes : (capacityBytesOf(pvc) ?? 0n),
    hostVolumeMode: mode === 'Filesystem' ? 'Filesystem' : mode === undefined ? undefined : 'Block',
  };
}

/**
 * The device's size before the expansion: its first read, or, of a mounted Filesystem-mode host
 * PVC's volume, the filesystem's size when smaller (grown to the device at staging: the disk may
 * have grown before kubelet called). Unmeasurable filesystems leave the first read.
 */
async function baselineOf(
  deps: NodeDeps,
  volume: {
    device: string;
    path: string;
    block: boolean;
    size: number;
    hostVolumeMode: GrowthTarget['hostVolumeMode'];
  },
): Promise<number> {
  if (volume.block || volume.hostVolumeMode !== 'Filesystem') return volume.size;
  const inspection = await deps.resizer
    .inspect(volume.device, { mountPath: volume.path })
    .catch(() => undefined);
  const staged = inspection?.filesystemBytes ?? null;
  return staged === null ? volume.size : Math.min(volume.size, staged);
}

/** The size of the NFS share mounted at `path` (statfs). */
async function sharedSizeOf(path: string): Promise<bigint> {
  const fs = await statfs(path, { bigint: true });
  return fs.blocks * fs.bsize;
}

/** Whether the last size read ends the wait: the size asked for, or a Filesystem-mode host PVC's disk grown. */
function grownEnough(target: GrowthTarget, size: number): boolean {
  return (
    size >= target.requiredBytes ||
    (target.hostVolumeMode === 'Filesystem' && grownAboveBaseline(target, size))
  );
}

/**
 * NodeExpandVolume: finds the volume's device (its by-id name, waited for), rescans it when it is a SCSI
 * disk that does not show the size asked for yet, waits until it does (of a Filesystem-mode host
 * PVC, until it has grown and two reads agree: KubeVirt sizes disk.img below the capacity), then grows the filesystem
 * mounted at volume_path through the fsresize core; a block volume's size is only checked.
 * Answers the device's size. A shared volume grows nothing in the guest (the host grows the
 * share): answers the share's size as the mount shows it.
 */
export async function expandVolume(
  deps: NodeDeps,
  request: NodeExpandVolumeRequest,
  ctx: CallContext,
): Promise<{ capacity_bytes: string }> {
  const { volume_id: volumeId, volume_path: path } = request;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  if (!path) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_path is required');
  const info = await stat(path).catch(() => undefined);
  if (info === undefined)
    throw new CsiError('CSI_PATH_NOT_FOUND', `volume path ${path} does not exist on this node`);
  const capability = readCapability(request.volume_capability, 'volume_capability');
  // A shared volume's filesystem is the host's: the NFS share shows its new size by itself.
  if (isShared(capability)) return { capacity_bytes: String(await sharedSizeOf(path)) };
  const block = capability ? capability.accessType === 'block' : !info.isDirectory();
  const { required, hostVolumeMode } = await expandTarget(deps, request, ctx.signal);
  return deps.locks.run(volumeId, 'NodeExpandVolume', async () => {
    // The volume is published here (kubelet asks only then): a missing link is udev re-creating
    // it (a rescan, a change event), waited for, then UNAVAILABLE (retried), never NOT_FOUND
    // (final for kubelet).
    const device = await withWaitSignal(ctx, deps.timeouts.deviceMs, (signal) =>
      deps.locator.waitFor(volumeId, signal),
    );
    if (device === undefined)
      throw new CsiError(
        'CSI_DEVICE_NOT_VISIBLE',
        `no device of volume ${volumeId} on this node yet (no /dev/disk/by-id entry names it after ${deps.timeouts.deviceMs / 1000} s); retry`,
      );
    const id = await deps.devices.identify(device);
    let size = await deps.devices.sizeBytes(id);
    if (BigInt(size) < required) {
      const target: GrowthTarget = {
        requiredBytes: Number(required),
        hostVolumeMode,
        baselineBytes: await baselineOf(deps, { device, path, block, size, hostVolumeMode }),
      };
      const rescanned = await deps.rescanner.rescan(id.realPath);
      if (rescanned) ctx.log.info({ volumeId, device: id.realPath }, 'rescanned the SCSI disk');
      size = await withWaitSignal(ctx, deps.timeouts.growMs, (signal) =>
        waitForDeviceSize(deps.devices, id, target, signal),
      );
      if (!grownEnough(target, size))
        throw new CsiError(
          'CSI_DEVICE_NOT_GROWN',
          `device ${id.realPath} of volume ${volumeId} shows ${formatBytes(BigInt(size))}, ${hostVolumeMode === 'Filesystem' ? `not grown above its ${formatBytes(BigInt(target.baselineBytes))} (a Filesystem-mode host PVC: KubeVirt grows disk.img to less than the ${formatBytes(required)} asked for)` : `not the ${formatBytes(required)} asked for`}${rescanned ? ' (after a SCSI rescan)' : ''}; the hypervisor has not grown it yet`,
        );
    }
    if (block) return { capacity_bytes: String(size) };
    const mounted = await deps.mounter.mountAt(path);
    if (mounted === null)
      throw new CsiError(
        'CSI_NOT_MOUNTED',
        `volume path ${path} is not a mount point: volume ${volumeId} is not published there`,
      );
    const result = await deps.resizer.grow(device, {
      mountPath: path,
      ...(required > 0n ? { requiredDeviceBytes: Math.min(Number(required), size) } : {}),
      signal: ctx.signal,
    });
    ctx.log.info(
      { volumeId, device, action: result.action, reason: result.reason },
      'NodeExpandVolume',
    );
    return { capacity_bytes: String(size) };
  });
}
