import { stat, statfs } from 'node:fs/promises';
import { CsiError } from '../errors/csi-error.js';
import type { NodeGetVolumeStatsRequest, VolumeUsageMessage } from '../proto/csi-messages.js';
import type { NodeDeps } from './node-deps.js';

/** NodeGetVolumeStats: bytes and inodes of a mounted filesystem (statfs), or a block volume's device size. */
export async function volumeStats(
  deps: NodeDeps,
  request: NodeGetVolumeStatsRequest,
): Promise<{ usage: VolumeUsageMessage[] }> {
  const { volume_id: volumeId, volume_path: path } = request;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  if (!path) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_path is required');
  const info = await stat(path).catch(() => undefined);
  if (info === undefined)
    throw new CsiError('CSI_PATH_NOT_FOUND', `volume path ${path} does not exist on this node`);
  if (info.isBlockDevice()) {
    const size = await deps.devices.sizeBytes(await deps.devices.identify(path));
    return { usage: [{ unit: 'BYTES', total: String(size), available: '0', used: '0' }] };
  }
  if ((await deps.mounter.mountAt(path)) === null)
    throw new CsiError(
      'CSI_PATH_NOT_FOUND',
      `volume path ${path} is not a mount point: volume ${volumeId} is not published there`,
    );
  const fs = await statfs(path, { bigint: true });
  return {
    usage: [
      {
        unit: 'BYTES',
        total: String(fs.blocks * fs.bsize),
        available: String(fs.bavail * fs.bsize),
        used: String((fs.blocks - fs.bfree) * fs.bsize),
      },
      {
        unit: 'INODES',
        total: String(fs.files),
        available: String(fs.ffree),
        used: String(fs.files - fs.ffree),
      },
    ],
  };
}
