import type { BlockDeviceId, BlockDevices } from '../model/block-devices.js';
import { FsResizeError } from '../model/fsresize-error.js';

/** The device a caller named: FSRESIZE_INVALID_ARGUMENT when it named none, else BlockDevices.identify. */
export async function identifyDevice(
  devices: BlockDevices,
  device: string,
): Promise<BlockDeviceId> {
  if (typeof device !== 'string' || device.trim() === '') {
    throw new FsResizeError(
      'FSRESIZE_INVALID_ARGUMENT',
      'no device was given; pass the block device to grow (e.g. /dev/sdb)',
    );
  }
  return devices.identify(device);
}
