import type { BlockDeviceId } from '../model/block-devices.js';
import { deviceError, openDevice } from './open-device.js';

/** Reads `length` bytes at `offset` through the kernel's buffered block device (BlockDevices.read). */
export async function readDevice(
  device: BlockDeviceId,
  offset: number,
  length: number,
): Promise<Uint8Array> {
  const handle = await openDevice(device);
  try {
    const buffer = new Uint8Array(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset).catch((error: unknown) => {
      throw deviceError(device, 'read', error);
    });
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
