import type { Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { BlockDeviceId } from '../model/block-devices.js';
import { FsResizeError } from '../model/fsresize-error.js';
import { majorMinorOf } from './major-minor-of.js';

/**
 * The block device at `path` (BlockDevices.identify). The link resolved once, and the device
 * number read from what it resolved to: a link (e.g. /dev/disk/by-id/...) re-pointed meanwhile
 * cannot give a number of one device and the path of another.
 */
export async function identifyBlockDevice(path: string): Promise<BlockDeviceId> {
  let realPath: string;
  let info;
  try {
    realPath = await realpath(path);
    info = await stat(realPath);
  } catch (error) {
    throw new FsResizeError(
      'FSRESIZE_DEVICE_NOT_FOUND',
      `device ${path} does not exist on this node; check the path (is the volume attached?)`,
      { cause: error },
    );
  }
  if (!info.isBlockDevice()) {
    throw new FsResizeError(
      'FSRESIZE_NOT_A_BLOCK_DEVICE',
      `${path} is not a block device but ${kindOf(info)}; pass the block device (e.g. /dev/sdb)`,
    );
  }
  return { path, realPath, majorMinor: majorMinorOf(info.rdev) };
}

/** What a path that is not a block device is, for the message. */
function kindOf(info: Stats): string {
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a pipe';
  if (info.isSocket()) return 'a socket';
  return 'a file';
}
