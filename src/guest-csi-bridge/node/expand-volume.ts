import { stat } from 'node:fs/promises';
import { formatBytes } from '../../kube/index.js';
import { readCapacityRange } from '../csi/capacity-range.js';
import { readCapability } from '../csi/volume-capability.js';
import { CsiError } from '../errors/csi-error.js';
import { capacityBytesOf } from '../controller/pvc-sizes.js';
import type { NodeExpandVolumeRequest } from '../proto/csi-messages.js';
import { withWaitSignal, type CallContext } from '../server/call-context.js';
import type { NodeDeps } from './node-deps.js';
import { waitForDeviceSize } from './wait-for-device-size.js';

/** The size NodeExpandVolume waits for: capacity_range.required_bytes, else the host PVC's capacity (when the node has host credentials). */
async function targetBytes(deps: NodeDeps, request: NodeExpandVolumeRequest): Promise<bigint> {
  const { requiredBytes } = readCapacityRange(request.capacity_range);
  if (requiredBytes > 0n || deps.hosts === undefined) return requiredBytes;
  const pvc = await deps.hosts.forSecrets(request.secrets).getPvc(request.volume_id);
  return capacityBytesOf(pvc) ?? 0n;
}

/**
 * NodeExpandVolume: finds the volume's device (its by-id name, waited for), rescans it when it is a SCSI
 * disk that does not show the size asked for yet, waits until it does, then grows the filesystem
 * mounted at volume_path through the fsresize core; a block volume's size is only checked.
 * Answers the device's size.
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
  const block = capability ? capability.accessType === 'block' : !info.isDirectory();
  const required = await targetBytes(deps, request);
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
      const rescanned = await deps.rescanner.rescan(id.realPath);
      if (rescanned) ctx.log.info({ volumeId, device: id.realPath }, 'rescanned the SCSI disk');
      size = await withWaitSignal(ctx, deps.timeouts.growMs, (signal) =>
        waitForDeviceSize(deps.devices, id, Number(required), signal),
      );
      if (BigInt(size) < required)
        throw new CsiError(
          'CSI_DEVICE_NOT_GROWN',
          `device ${id.realPath} of volume ${volumeId} shows ${formatBytes(BigInt(size))}, not the ${formatBytes(required)} asked for${rescanned ? ' (after a SCSI rescan)' : ''}; the hypervisor has not grown it yet`,
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
      ...(required > 0n ? { requiredDeviceBytes: Number(required) } : {}),
      signal: ctx.signal,
    });
    ctx.log.info(
      { volumeId, device, action: result.action, reason: result.reason },
      'NodeExpandVolume',
    );
    return { capacity_bytes: String(size) };
  });
}
