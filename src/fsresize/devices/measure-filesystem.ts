import type { BlockDeviceId } from '../model/block-devices.js';
import { FsResizeError } from '../model/fsresize-error.js';
import type { Inspection } from '../model/inspection.js';
import { parseBtrfsDumpSuper } from '../parse/parse-btrfs-dump-super.js';
import {
  EXT_SUPERBLOCK_LENGTH,
  EXT_SUPERBLOCK_OFFSET,
  parseExtSuperblock,
} from '../parse/parse-ext-superblock.js';
import { parseXfsStatfs } from '../parse/parse-xfs-statfs.js';
import { XFS_SUPERBLOCK_LENGTH, parseXfsSuperblock } from '../parse/parse-xfs-superblock.js';
import type { ResizerPorts } from '../model/resizer-ports.js';
import { toolFailure } from '../model/tool-failure.js';

/** How big a filesystem is on its device, and what else its measurement tells (see Inspection). */
export type FilesystemSize = {
  bytes: number;
  blockBytes: number;
  btrfs: Inspection['btrfs'];
} & Partial<
  Pick<Inspection, 'extCheckNeeded' | 'extErrors' | 'extPageBytes' | 'ext64bit' | 'extBigalloc'>
>;

type MeasurePorts = Pick<ResizerPorts, 'devices' | 'runner' | 'probeMs' | 'pageBytes'>;

/**
 * The size of `filesystem` on the device: ext from its superblock; xfs from `xfs_io -c statfs` at
 * its mount point, or from its superblock when unmounted; btrfs from `btrfs inspect-internal
 * dump-super`. Changes nothing.
 */
export async function measureFilesystem(
  ports: MeasurePorts,
  id: BlockDeviceId,
  filesystem: string,
  mountPoint: string | null,
): Promise<FilesystemSize> {
  switch (filesystem) {
    case 'ext2':
    case 'ext3':
    case 'ext4':
      return measureExt(ports, id, filesystem);
    case 'xfs':
      return mountPoint === null
        ? measureUnmountedXfs(ports, id)
        : measureMountedXfs(ports, id, mountPoint);
    case 'btrfs':
      return measureBtrfs(ports, id);
    default:
      throw new FsResizeError(
        'FSRESIZE_UNSUPPORTED_FILESYSTEM',
        `cannot measure ${filesystem} on ${id.path}`,
      );
  }
}

/** FSRESIZE_UNEXPECTED_OUTPUT: the size could not be read from `what`. */
function unexpected(
  id: BlockDeviceId,
  filesystem: string,
  what: string,
  output: string,
): FsResizeError {
  return new FsResizeError(
    'FSRESIZE_UNEXPECTED_OUTPUT',
    `could not read the size of ${filesystem} on ${id.path} from ${what}; nothing was changed${output ? ` (output: ${output.trim().slice(0, 300)})` : ''}`,
  );
}

/** The fields `dumpe2fs -h` prints as Block count x Block size, read without a process. */
async function measureExt(
  { devices, pageBytes }: MeasurePorts,
  id: BlockDeviceId,
  filesystem: string,
): Promise<FilesystemSize> {
  const superblock = parseExtSuperblock(
    await devices.read(id, EXT_SUPERBLOCK_OFFSET, EXT_SUPERBLOCK_LENGTH),
  );
  if (superblock === null) throw unexpected(id, filesystem, 'its superblock (no ext magic)', '');
  return {
    bytes: superblock.bytes,
    blockBytes: superblock.blockSize,
    btrfs: null,
    extCheckNeeded: superblock.checkNeeded,
    extErrors: superblock.errorsRecorded,
    extPageBytes: pageBytes,
    ext64bit: superblock.bit64,
    extBigalloc: superblock.bigalloc,
  };
}

async function measureUnmountedXfs(
  { devices }: MeasurePorts,
  id: BlockDeviceId,
): Promise<FilesystemSize> {
  const geometry = parseXfsSuperblock(await devices.read(id, 0, XFS_SUPERBLOCK_LENGTH));
  if (geometry === null) throw unexpected(id, 'xfs', 'its superblock (no XFSB magic)', '');
  return { bytes: geometry.bytes, blockBytes: geometry.blockSize, btrfs: null };
}

async function measureMountedXfs(
  { runner, probeMs }: MeasurePorts,
  id: BlockDeviceId,
  mountPoint: string,
): Promise<FilesystemSize> {
  const args = ['-c', 'statfs', mountPoint];
  const result = await runner.run('xfs_io', args, { timeoutMs: probeMs });
  if (result.exitCode !== 0)
    throw toolFailure('xfs_io', args, result, `measuring xfs at ${mountPoint}`);
  const geometry = parseXfsStatfs(result.stdout);
  if (geometry === null) throw unexpected(id, 'xfs', 'xfs_io -c statfs', result.stdout);
  return { bytes: geometry.bytes, blockBytes: geometry.blockSize, btrfs: null };
}

async function measureBtrfs(
  { runner, probeMs }: MeasurePorts,
  id: BlockDeviceId,
): Promise<FilesystemSize> {
  const args = ['inspect-internal', 'dump-super', id.realPath];
  const result = await runner.run('btrfs', args, { timeoutMs: probeMs });
  if (result.exitCode !== 0)
    throw toolFailure('btrfs', args, result, `measuring btrfs on ${id.path}`);
  const size = parseBtrfsDumpSuper(result.stdout);
  if (size === null)
    throw unexpected(id, 'btrfs', 'btrfs inspect-internal dump-super', result.stdout);
  return {
    bytes: size.bytes,
    blockBytes: size.sectorSize,
    btrfs: { devid: size.devid, devices: size.devices },
  };
}
