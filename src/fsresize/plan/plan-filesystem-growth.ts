import { GuestGrowthError } from '../model/guest-growth-error.js';
import type { GuestStep } from '../model/guest-growth-plan.js';
import type { GuestLayout } from '../model/guest-layout.js';
import { isSupportedFilesystem } from '../model/inspection.js';
import type { LsblkDevice } from '../parse/parse-lsblk-json.js';
import { EXT_32BIT_MAX_BLOCKS } from './ext-grow-target.js';
import { formatBytePair } from './format-byte-pair.js';
import { growCommand } from './grow-command.js';
import { growTargetBytes } from './grow-target-bytes.js';

/**
 * How far short of its target a grown filesystem may stay: one block (Kubernetes' NeedResize
 * tolerates the partial last block, as needsResize does), and for xfs 64 blocks, as xfs_growfs
 * leaves a tail too small for an allocation group (XFS_MIN_AG_BLOCKS) unused.
 */
function slackBytes(filesystem: string, blockBytes: number): number {
  return filesystem === 'xfs' ? 64 * blockBytes : blockBytes;
}

/**
 * The step that grows the mounted filesystem on `device` once the device is `deviceBytes`
 * (its size after the partition or LV steps before it); none when the filesystem already fills
 * that. Refused: no filesystem, one the core does not grow, one not mounted, an unmeasured one,
 * one larger than its device (a shrink), an ext one without 64bit past 2^32-1 blocks.
 */
export function planFilesystemGrowth(
  layout: GuestLayout,
  device: LsblkDevice,
  deviceBytes: number,
): GuestStep[] {
  const { fstype: filesystem, mountPoint, name } = device;
  if (filesystem === null) {
    throw new GuestGrowthError(
      'GUESTGROW_NOT_MOUNTED',
      `${name} holds no filesystem the guest knows of`,
      'make a filesystem on it and mount it, or grow what uses it by hand',
      { device: name },
    );
  }
  if (!isSupportedFilesystem(filesystem)) {
    throw new GuestGrowthError(
      'GUESTGROW_UNSUPPORTED_FILESYSTEM',
      `${name} holds ${filesystem}, which voe does not grow (it grows ext2, ext3, ext4, xfs and btrfs)`,
      `grow it in the guest with its own tools`,
      { device: name, filesystem },
    );
  }
  if (mountPoint === null) {
    throw new GuestGrowthError(
      'GUESTGROW_NOT_MOUNTED',
      `${filesystem} on ${name} is not mounted in the guest, and voe grows only mounted filesystems there (online, as xfs and btrfs require)`,
      `mount it in the guest and retry, or grow it there by hand (${growCommand(filesystem, name, '/MOUNTPOINT').tool})`,
      { device: name, filesystem },
    );
  }
  const size = layout.filesystems[name];
  if (size === undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_LAYOUT_UNREADABLE',
      `the size of ${filesystem} on ${name} was not read from the guest`,
      'check that the guest agent can run its tools (dumpe2fs, xfs_io, btrfs) and retry',
      { device: name, filesystem },
    );
  }
  if (size.bytes > deviceBytes) {
    const [fsSize, deviceSize] = formatBytePair(size.bytes, deviceBytes);
    throw new GuestGrowthError(
      'GUESTGROW_WOULD_SHRINK',
      `${filesystem} on ${name} (${fsSize}) is larger than its device would be (${deviceSize}): growing would have to shrink it`,
      'check the disk in the guest: was the volume made smaller, or is this not the device the filesystem was made on?',
      { device: name, filesystemBytes: size.bytes, deviceBytes },
    );
  }
  const target = growTargetBytes({
    filesystem,
    deviceBytes,
    blockBytes: size.blockBytes,
    extPageBytes: size.extPageBytes,
    ext64bit: size.ext64bit,
  });
  if (target <= size.bytes || deviceBytes - size.bytes <= slackBytes(filesystem, size.blockBytes))
    return [];
  if (size.ext64bit === false && target > EXT_32BIT_MAX_BLOCKS * size.blockBytes) {
    throw new GuestGrowthError(
      'GUESTGROW_UNSUPPORTED_LAYOUT',
      `${filesystem} on ${name} has no 64bit feature and cannot address ${target} bytes (2^32-1 blocks of ${size.blockBytes} bytes at most; resize2fs refuses)`,
      `convert it offline in the guest (e2fsck -f ${name}, then resize2fs -b ${name}), or keep the disk smaller`,
      { device: name, filesystem },
    );
  }
  const command = growCommand(filesystem, name, mountPoint, size.btrfs ?? null);
  const [from, to] = formatBytePair(size.bytes, target);
  return [
    {
      argv: [command.tool, ...command.args],
      why: `grow ${filesystem} on ${name} (mounted at ${mountPoint}) from ${from} to ${to}, online`,
      expect: {
        reading: 'filesystem',
        of: name,
        beforeBytes: size.bytes,
        atLeastBytes: target - slackBytes(filesystem, size.blockBytes),
      },
    },
  ];
}
