import { open } from 'node:fs/promises';
import type { BlockDeviceId } from '../model/block-devices.js';
import { FsResizeError } from '../model/fsresize-error.js';

/** A typed error for a failed open or read of the device itself (never its content). */
export function deviceError(
  device: BlockDeviceId,
  what: 'open' | 'read',
  error: unknown,
): FsResizeError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  if (code === 'EACCES' || code === 'EPERM') {
    return new FsResizeError(
      'FSRESIZE_PERMISSION_DENIED',
      `cannot ${what} ${device.path} (${code}); run voe as root on the node`,
      { cause: error },
    );
  }
  if (code === 'ENOENT' || code === 'ENXIO' || code === 'ENODEV') {
    return new FsResizeError(
      'FSRESIZE_DEVICE_NOT_FOUND',
      `cannot ${what} ${device.path} (${code}): the device went away; is the volume still attached?`,
      { cause: error },
    );
  }
  return new FsResizeError(
    'FSRESIZE_DEVICE_IO',
    `cannot ${what} ${device.path} (${code}); nothing was changed — check the device (dmesg) and retry`,
    { cause: error },
  );
}

/** The device opened read-only (not exclusive); deviceError when it cannot be. */
export function openDevice(device: BlockDeviceId): ReturnType<typeof open> {
  return open(device.realPath, 'r').catch((error: unknown) => {
    throw deviceError(device, 'open', error);
  });
}
