import { withArticle } from '../../errors/index.js';
import { beyond32Bits } from './beyond-32-bits.js';
import { bigallocOffline } from './bigalloc-offline.js';
import { formatBytePair } from './format-byte-pair.js';
import { growCommand } from './grow-command.js';
import { growTargetBytes } from './grow-target-bytes.js';
import {
  isSupportedFilesystem,
  type Inspection,
  type SupportedFilesystem,
} from '../model/inspection.js';
import { needsResize } from './needs-resize.js';
import { refusePlan as refuse } from './refuse-plan.js';
import { usedElsewhere } from './used-elsewhere.js';
import type { GrowPlan, PlanOptions } from '../model/grow-plan.js';

/**
 * Block devices are sized in whole sectors, and storage may round a volume down to its logical
 * block (at most 4 KiB): a device short of the required size by less than that has grown.
 */
export const DEVICE_SIZE_SLACK_BYTES = 4096;

/** voe reads /proc/self/mountinfo: a mount made only inside a container is not there. */
const NAMESPACE_HINT =
  'voe sees the mounts of its own mount namespace only, so if it is mounted inside a container, grow it there';

/**
 * The pure decision of the core. Order: a device of 0 bytes is refused (there is nothing on
 * it); a device short of PlanOptions.requiredDeviceBytes is refused (it has not grown yet) unless
 * it is smaller than its filesystem (that fault is reported as such, below); a read-only device or mount is left alone whatever it holds (as in Kubernetes' resize
 * path); content we do not understand is refused (a partition table, an unsupported filesystem,
 * both a filesystem and a partition table); an unformatted device is left alone; a filesystem
 * mounted only where another mount hides it is refused (the tools would act on the filesystem
 * shown there); a device smaller than its filesystem is refused (a fault, not a no-op); a
 * filesystem that already fills its device (an ext one: that has the size resize2fs can reach,
 * the device rounded down to whole pages, see extGrowTarget) is left alone (unless it is an unmounted ext
 * filesystem that records errors: that one is checked, `kind: 'check'`, under the same guards as an
 * offline grow); an ext filesystem without the 64bit feature is refused a size beyond 2^32-1
 * blocks (offline, after the look for other users), and an unmounted bigalloc one is refused
 * (resize2fs would not grow it unforced); xfs and btrfs need a mount point; and
 * only then the tool is chosen (resize2fs <device>; xfs_growfs -d <mountpoint>; btrfs filesystem
 * resize max|<devid>:max <mountpoint>). An unmounted ext filesystem that resize2fs would refuse
 * (see parseExtSuperblock's checkNeeded) is checked first with `e2fsck -f -p <device>`; preen
 * mode makes only the fixes that are safe without a person.
 */
export function planGrow(inspection: Inspection, options: PlanOptions = {}): GrowPlan {
  const first = unusableDevice(inspection, options) ?? readOnly(inspection, options);
  if (first !== null) return first;
  const { filesystem } = inspection;
  if (!isSupportedFilesystem(filesystem)) return otherContent(inspection);
  return (
    mixedSignatures(inspection, filesystem) ??
    hiddenOrShrunk(inspection, filesystem) ??
    alreadyGrown(inspection, filesystem, options) ??
    toolPlan(inspection, filesystem, options)
  );
}

/** A device with nothing behind it, or one that has not grown to the size required yet. */
function unusableDevice(inspection: Inspection, options: PlanOptions): GrowPlan | null {
  const { device } = inspection;
  if (inspection.deviceBytes === 0) {
    return refuse(
      'FSRESIZE_DEVICE_EMPTY',
      `${device} has no size (0 bytes): nothing is behind it (e.g. a loop device without a backing file, a volume that is not attached yet); nothing was changed — check that this is the volume's device`,
    );
  }
  const required = options.requiredDeviceBytes;
  // A device smaller than its filesystem is a fault to report (below), not a growth to wait for.
  const shrunk =
    inspection.filesystemBytes !== null && inspection.deviceBytes < inspection.filesystemBytes;
  if (
    required !== undefined &&
    required - inspection.deviceBytes >= DEVICE_SIZE_SLACK_BYTES &&
    !shrunk
  ) {
    return refuse(
      'FSRESIZE_DEVICE_TOO_SMALL',
      `${device} is ${inspection.deviceBytes} bytes, less than the requested ${required}: the volume has not grown on this node yet; nothing was changed — retry once the device shows the new size`,
    );
  }
  return null;
}

/**
 * Read-only before any other refusal, as Kubernetes' resize path does (NeedResize is false on a
 * read-only device): whatever the device holds, nothing is written to it.
 */
function readOnly(inspection: Inspection, options: PlanOptions): GrowPlan | null {
  const { device, filesystem, mountPoint } = inspection;
  if (inspection.deviceReadOnly) {
    if (options.readOnlyDevice === 'refuse') {
      return refuse(
        'FSRESIZE_DEVICE_READ_ONLY',
        `${device} is read-only (blockdev --getro = 1), so ${filesystem ? `the ${filesystem} filesystem on it` : 'it'} cannot be grown; nothing was changed — find out why the device is read-only (a read-only attachment, or the storage set it so after an error), make it writable, and retry`,
      );
    }
    return {
      kind: 'noop',
      reason: `${device} is read-only (blockdev --getro = 1): ${filesystem ? `the ${filesystem} filesystem` : 'the device'} was not changed`,
    };
  }
  if (mountPoint !== null && inspection.mountReadOnly) {
    if (options.readOnlyMount === 'refuse') {
      return refuse(
        'FSRESIZE_MOUNT_READ_ONLY',
        `${filesystem ?? 'the filesystem'} on ${device} is mounted read-only at ${mountPoint} although the device is writable, so it cannot be grown there; nothing was changed — find out why it is read-only (ext4 remounts itself read-only after an error: check the kernel log and the filesystem), mount it read-write, and retry`,
      );
    }
    return {
      kind: 'noop',
      reason: `${filesystem ?? 'the filesystem'} on ${device} is mounted read-only at ${mountPoint}: the filesystem was not changed`,
    };
  }
  return null;
}

/** Anything but a filesystem voe grows: a partition table, another filesystem, or nothing. */
function otherContent(inspection: Inspection): GrowPlan {
  const { device, filesystem, partitionTable, mountPoint } = inspection;
  if (filesystem === null && partitionTable !== null) {
    const disk = inspection.devicePath;
    return refuse(
      'FSRESIZE_PARTITIONED',
      `${device} holds ${withArticle(partitionTable)} partition table, not a filesystem (a partition's filesystem is on the partition's own device); nothing was changed — grow the partition (e.g. growpart ${disk} 1), then run voe on the partition's device (e.g. ${firstPartitionOf(disk)}: <disk>p1 when the disk's name ends in a digit, <disk>1 otherwise)`,
    );
  }
  if (filesystem !== null) {
    return refuse(
      'FSRESIZE_UNSUPPORTED_FILESYSTEM',
      `resize of ${filesystem} is not supported (device ${device}${mountPoint ? `, mounted at ${mountPoint}` : ''}); voe grows ext2, ext3, ext4, xfs and btrfs — grow this filesystem with its own tools`,
    );
  }
  return {
    kind: 'noop',
    reason: `${device} is not formatted (blkid found no filesystem): nothing to grow; it gets the full size when it is formatted`,
  };
}

/** Both a filesystem and a partition table: voe will not guess which one is real. */
function mixedSignatures(inspection: Inspection, filesystem: SupportedFilesystem): GrowPlan | null {
  const { device, partitionTable } = inspection;
  if (partitionTable === null) return null;
  return refuse(
    'FSRESIZE_PARTITIONED',
    `${device} carries both ${withArticle(filesystem)} signature and ${withArticle(partitionTable)} partition table; voe will not guess which one is real — inspect the device with blkid/wipefs and remove the stale signature`,
  );
}

/**
 * Mounted only where another mount hides it (the tools would act on the filesystem shown there),
 * or on a device smaller than itself (a fault, not a no-op).
 */
function hiddenOrShrunk(inspection: Inspection, filesystem: SupportedFilesystem): GrowPlan | null {
  const { device, mountPoint } = inspection;
  if (mountPoint === null && inspection.hiddenMountPoints.length > 0) {
    const where = inspection.hiddenMountPoints.join(', ');
    return refuse(
      'FSRESIZE_MOUNT_HIDDEN',
      `${filesystem} on ${device} is mounted at ${where} but hidden by another mount there (the path shows another filesystem, which the tools would act on); nothing was changed — unmount what is mounted over it, or mount ${device} where it is visible, and retry`,
    );
  }
  const fsBytes = inspection.filesystemBytes ?? 0;
  if (inspection.deviceBytes < fsBytes) {
    const [deviceSize, fsSize] = formatBytePair(inspection.deviceBytes, fsBytes);
    return refuse(
      'FSRESIZE_DEVICE_SMALLER_THAN_FILESYSTEM',
      `${device} (${deviceSize}) is smaller than the ${filesystem} filesystem on it (${fsSize}): the device shrank or is not the one the filesystem was made on; nothing was changed — check the device (was the volume or its backing file made smaller?) before mounting it or writing to it`,
    );
  }
  return null;
}

/**
 * A filesystem that already fills its device (an ext one: that has the size resize2fs can reach,
 * see extGrowTarget): nothing to grow, unless it is an unmounted ext filesystem that records
 * errors, which is checked.
 */
function alreadyGrown(
  inspection: Inspection,
  filesystem: SupportedFilesystem,
  options: PlanOptions,
): GrowPlan | null {
  if (needsResize(inspection)) return null;
  const { device, mountPoint } = inspection;
  const fsBytes = inspection.filesystemBytes ?? 0;
  // resize2fs grows ext to whole pages of the system's page size only (see extGrowTarget).
  const targetBytes = growTargetBytes(inspection);
  const pageBound =
    targetBytes < inspection.deviceBytes &&
    inspection.deviceBytes > fsBytes + (inspection.blockBytes ?? 0);
  const [fsSize, deviceSize] = formatBytePair(fsBytes, inspection.deviceBytes);
  const full = pageBound
    ? `${filesystem} on ${device} already has the size resize2fs can reach (${fsSize} of ${deviceSize}: resize2fs grows it to a whole number of ${inspection.extPageBytes}-byte pages, so the last ${inspection.deviceBytes - targetBytes} bytes of the device stay unused)`
    : `${filesystem} on ${device} already fills the device (${fsSize} of ${deviceSize})`;
  if (mountPoint === null && inspection.extErrors === true) {
    // extErrors: ext filesystems only
    // A grow stopped midway (resize2fs killed) leaves the new size written and the filesystem
    // marked with errors: "nothing to grow" would pass a damaged filesystem as grown (kubelet
    // then mounts it). Checked like any offline ext grow that needs it, under the same guards.
    const inUse = usedElsewhere(inspection, options);
    if (inUse !== null) return inUse;
    return {
      kind: 'check',
      reason: `${full} but records errors (e.g. a resize stopped midway)`,
      precheck: { tool: 'e2fsck', args: ['-f', '-p', inspection.devicePath] },
    };
  }
  return { kind: 'noop', reason: `${full}: nothing to grow` };
}

/** The filesystem's own grow tool, and what must hold for it (see the tool plans below). */
function toolPlan(
  inspection: Inspection,
  filesystem: SupportedFilesystem,
  options: PlanOptions,
): GrowPlan {
  const fsBytes = inspection.filesystemBytes ?? 0;
  const targetBytes = growTargetBytes(inspection);
  const [fromSize, toSize] = formatBytePair(fsBytes, targetBytes);
  const growth = `${filesystem} on ${inspection.device} from ${fromSize} to ${toSize}`;
  switch (filesystem) {
    case 'ext2':
    case 'ext3':
    case 'ext4':
      return extPlan(inspection, filesystem, growth, targetBytes, options);
    case 'xfs':
      return xfsPlan(inspection, growth);
    case 'btrfs':
      return btrfsPlan(inspection, growth);
  }
}

/**
 * resize2fs <device>, online or offline. Offline, who else uses the device comes first (the
 * advice of the other refusals, to work on it offline, must not be followed under them), and a
 * filesystem that resize2fs would refuse unchecked is checked first (e2fsck -f -p).
 */
function extPlan(
  inspection: Inspection,
  filesystem: 'ext2' | 'ext3' | 'ext4',
  growth: string,
  targetBytes: number,
  options: PlanOptions,
): GrowPlan {
  const { mountPoint, devicePath } = inspection;
  if (mountPoint !== null) {
    return (
      beyond32Bits(inspection, targetBytes) ?? {
        kind: 'grow',
        ...growCommand(filesystem, devicePath),
        reason: `grow ${growth} online (mounted at ${mountPoint})`,
      }
    );
  }
  const refused =
    usedElsewhere(inspection, options) ??
    beyond32Bits(inspection, targetBytes) ??
    bigallocOffline(inspection);
  if (refused !== null) return refused;
  if (inspection.extCheckNeeded !== true) {
    return {
      kind: 'grow',
      ...growCommand(filesystem, devicePath),
      reason: `grow ${growth} offline`,
    };
  }
  return {
    kind: 'grow',
    ...growCommand(filesystem, devicePath),
    reason: `check and grow ${growth} offline`,
    precheck: { tool: 'e2fsck', args: ['-f', '-p', devicePath] },
  };
}

/** xfs_growfs -d <mountpoint>: xfs grows only mounted, and only where no hidden mount is listed under it. */
function xfsPlan(inspection: Inspection, growth: string): GrowPlan {
  const { device, mountPoint } = inspection;
  if (mountPoint === null) {
    return refuse(
      'FSRESIZE_NOT_MOUNTED',
      `xfs on ${device} is not mounted; xfs only grows while mounted — mount it and retry; ${NAMESPACE_HINT}`,
    );
  }
  if (inspection.mountPointStacked === true) {
    // xfs_growfs finds the first mount listed at its path and sizes the data section from
    // that mount's device: here the hidden filesystem's (another device's; mounts of the
    // same filesystem listed twice there are not stacked, see deviceMounts).
    return refuse(
      'FSRESIZE_MOUNT_HIDDEN',
      `xfs on ${device} is mounted at ${mountPoint} over another mount, which it hides; xfs_growfs would take the size of the hidden filesystem's device, not of ${device}, so nothing was changed — unmount the hidden filesystem, or also mount ${device} at a path of its own, and retry`,
    );
  }
  return {
    kind: 'grow',
    ...growCommand('xfs', inspection.devicePath, mountPoint),
    reason: `grow ${growth} online (mounted at ${mountPoint})`,
  };
}

/** btrfs filesystem resize max|<devid>:max <mountpoint>: btrfs grows only mounted. */
function btrfsPlan(inspection: Inspection, growth: string): GrowPlan {
  const { device, mountPoint } = inspection;
  if (mountPoint === null) {
    return refuse(
      'FSRESIZE_NOT_MOUNTED',
      `btrfs on ${device} is not mounted; btrfs only grows while mounted — mount it and retry; ${NAMESPACE_HINT}`,
    );
  }
  return {
    kind: 'grow',
    ...growCommand('btrfs', inspection.devicePath, mountPoint, inspection.btrfs),
    reason: `grow ${growth} online (mounted at ${mountPoint})`,
  };
}

/**
 * The name the kernel gives the first partition of a disk: "p1" appended when the disk's name
 * ends in a digit (/dev/loop0p1, /dev/nvme0n1p1), "1" otherwise (/dev/sda1).
 */
function firstPartitionOf(disk: string): string {
  return /\d$/.test(disk) ? `${disk}p1` : `${disk}1`;
}
