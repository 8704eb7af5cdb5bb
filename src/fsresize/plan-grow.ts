import { withArticle } from '../errors/index.js';
import { formatBytePair } from './format-byte-pair.js';
import { formatBytes } from './format-bytes.js';
import { FsResizeError } from './fsresize-error.js';
import type { DeviceOpener } from './block-devices.js';
import { EXT_32BIT_MAX_BLOCKS } from './ext-grow-target.js';
import { growTargetBytes } from './grow-target-bytes.js';
import { isSupportedFilesystem, type Inspection } from './inspection.js';
import { needsResize } from './needs-resize.js';

/** What to do with an inspected device. */
export type GrowPlan =
  | { kind: 'noop'; reason: string }
  | { kind: 'refuse'; error: FsResizeError }
  | {
      kind: 'grow';
      tool: string;
      args: string[];
      reason: string;
      precheck?: { tool: string; args: string[] };
    }
  /** Nothing to grow, but the filesystem must be checked before anyone is told so (see planGrow). */
  | { kind: 'check'; reason: string; precheck: { tool: string; args: string[] } };

/** What planGrow may be told beyond the inspection. */
export interface PlanOptions {
  /**
   * Processes whose open files voe may not read (DeviceUsers.unreadable) may use the device:
   * 'refuse' (default) an offline grow while there are any; 'ignore' them (only for a caller that
   * knows they do not use the device, e.g. a sandbox's init). The same for the processes voe
   * cannot see at all (DeviceUsers.processesHidden: voe in a PID namespace of its own).
   */
  unreadableProcesses?: 'refuse' | 'ignore';
  /**
   * The size the volume was grown to (e.g. kubelet's new size): a device still short of it by
   * DEVICE_SIZE_SLACK_BYTES or more is refused FSRESIZE_DEVICE_TOO_SMALL (the volume has not grown
   * on this node yet). Judged on the inspection made under the device lock, so a retry never
   * acts on a size read before another operation on the device.
   */
  requiredDeviceBytes?: number;
  /**
   * A filesystem mounted read-only on a writable device: 'leave' it, a no-op with the reason
   * (default; an operator's choice), or 'refuse' FSRESIZE_MOUNT_READ_ONLY, for a caller whose
   * success records the resize as done (kubelet's expandfs: its mount-utils path fails there and
   * retries, and kubelet skips volumes that are read-only by their spec before calling).
   */
  readOnlyMount?: 'leave' | 'refuse';
  /**
   * A read-only device: 'leave' it, a no-op with the reason (default, as Kubernetes' NeedResize
   * says no), or 'refuse' FSRESIZE_DEVICE_READ_ONLY, for the same callers as readOnlyMount: a
   * success would record a filesystem that did not grow as grown.
   */
  readOnlyDevice?: 'leave' | 'refuse';
}

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
  const { device, filesystem, partitionTable, mountPoint } = inspection;
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
  // Read-only before any other refusal, as Kubernetes' resize path does (NeedResize is false on a
  // read-only device): whatever the device holds, nothing is written to it.
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
  if (filesystem === null && partitionTable !== null) {
    const disk = inspection.devicePath;
    return refuse(
      'FSRESIZE_PARTITIONED',
      `${device} holds ${withArticle(partitionTable)} partition table, not a filesystem (a partition's filesystem is on the partition's own device); nothing was changed — grow the partition (e.g. growpart ${disk} 1), then run voe on the partition's device (e.g. ${firstPartitionOf(disk)}: <disk>p1 when the disk's name ends in a digit, <disk>1 otherwise)`,
    );
  }
  if (filesystem !== null && !isSupportedFilesystem(filesystem)) {
    return refuse(
      'FSRESIZE_UNSUPPORTED_FILESYSTEM',
      `resize of ${filesystem} is not supported (device ${device}${mountPoint ? `, mounted at ${mountPoint}` : ''}); voe grows ext2, ext3, ext4, xfs and btrfs — grow this filesystem with its own tools`,
    );
  }
  if (filesystem !== null && partitionTable !== null) {
    return refuse(
      'FSRESIZE_PARTITIONED',
      `${device} carries both ${withArticle(filesystem)} signature and ${withArticle(partitionTable)} partition table; voe will not guess which one is real — inspect the device with blkid/wipefs and remove the stale signature`,
    );
  }
  if (filesystem === null) {
    return {
      kind: 'noop',
      reason: `${device} is not formatted (blkid found no filesystem): nothing to grow; it gets the full size when it is formatted`,
    };
  }
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
  // resize2fs grows ext to whole pages of the system's page size only (see extGrowTarget).
  const targetBytes = growTargetBytes(inspection);
  if (!needsResize(inspection)) {
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
  const [fromSize, toSize] = formatBytePair(fsBytes, targetBytes);
  const growth = `${filesystem} on ${device} from ${fromSize} to ${toSize}`;
  switch (filesystem) {
    case 'ext2':
    case 'ext3':
    case 'ext4':
      if (mountPoint !== null) {
        return (
          beyond32Bits(inspection, targetBytes) ?? {
            kind: 'grow',
            tool: 'resize2fs',
            args: [inspection.devicePath],
            reason: `grow ${growth} online (mounted at ${mountPoint})`,
          }
        );
      }
      {
        // Who else uses the device first: the advice of the refusals below (work on it offline) must not be followed under them.
        const refused =
          usedElsewhere(inspection, options) ??
          beyond32Bits(inspection, targetBytes) ??
          bigallocOffline(inspection);
        if (refused !== null) return refused;
      }
      if (inspection.extCheckNeeded !== true) {
        return {
          kind: 'grow',
          tool: 'resize2fs',
          args: [inspection.devicePath],
          reason: `grow ${growth} offline`,
        };
      }
      return {
        kind: 'grow',
        tool: 'resize2fs',
        args: [inspection.devicePath],
        reason: `check and grow ${growth} offline`,
        precheck: { tool: 'e2fsck', args: ['-f', '-p', inspection.devicePath] },
      };
    case 'xfs':
      if (mountPoint === null) {
        return refuse(
          'FSRESIZE_NOT_MOUNTED',
          `xfs on ${device} is not mounted; xfs only grows while mounted — mount it and retry; ${NAMESPACE_HINT}`,
        );
      }
      if (inspection.mountPointStacked === true) {
        // xfs_growfs finds the first mount listed at its path and sizes the data section from
        // that mount's device: here the hidden filesystem's (another device's; mounts of the
        // same filesystem listed twice there are not stacked, see createFsResizer).
        return refuse(
          'FSRESIZE_MOUNT_HIDDEN',
          `xfs on ${device} is mounted at ${mountPoint} over another mount, which it hides; xfs_growfs would take the size of the hidden filesystem's device, not of ${device}, so nothing was changed — unmount the hidden filesystem, or also mount ${device} at a path of its own, and retry`,
        );
      }
      return {
        kind: 'grow',
        tool: 'xfs_growfs',
        args: ['-d', mountPoint],
        reason: `grow ${growth} online (mounted at ${mountPoint})`,
      };
    case 'btrfs': {
      if (mountPoint === null) {
        return refuse(
          'FSRESIZE_NOT_MOUNTED',
          `btrfs on ${device} is not mounted; btrfs only grows while mounted — mount it and retry; ${NAMESPACE_HINT}`,
        );
      }
      // `max` alone means devid 1, which a single-device btrfs may not have (its first device was replaced or removed).
      const target =
        inspection.btrfs && (inspection.btrfs.devices > 1 || inspection.btrfs.devid !== 1)
          ? `${inspection.btrfs.devid}:max`
          : 'max';
      return {
        kind: 'grow',
        tool: 'btrfs',
        args: ['filesystem', 'resize', target, mountPoint],
        reason: `grow ${growth} online (mounted at ${mountPoint})`,
      };
    }
  }
}

/**
 * The name the kernel gives the first partition of a disk: "p1" appended when the disk's name
 * ends in a digit (/dev/loop0p1, /dev/nvme0n1p1), "1" otherwise (/dev/sda1).
 */
function firstPartitionOf(disk: string): string {
  return /\d$/.test(disk) ? `${disk}p1` : `${disk}1`;
}

/**
 * An ext filesystem without the 64bit feature spans at most 2^32-1 blocks, and resize2fs refuses
 * a larger size, mounted or not, after any check ("New size too large to be expressed in 32
 * bits"): refused before anything runs, as no retry can succeed. Growing it to the most it can
 * address instead would report a volume as grown while part of it stays unusable.
 */
function beyond32Bits(inspection: Inspection, targetBytes: number): GrowPlan | null {
  const { device, devicePath, filesystem, blockBytes } = inspection;
  if (
    inspection.ext64bit !== false ||
    blockBytes === null ||
    targetBytes <= EXT_32BIT_MAX_BLOCKS * blockBytes
  )
    return null;
  const most = EXT_32BIT_MAX_BLOCKS * blockBytes;
  const volume = 2 ** 32 * blockBytes;
  const extents =
    filesystem === 'ext4'
      ? ''
      : ' (resize2fs -b needs the extents feature: tune2fs -O extents first, which makes it ext4)';
  return refuse(
    'FSRESIZE_EXT_32BIT_LIMIT',
    `${filesystem} on ${device} cannot grow to ${formatBytePair(targetBytes, most)[0]}: without the 64bit feature it cannot address more than ${most} bytes (${formatBytes(most)}; 2^32-1 blocks of ${blockBytes} bytes), and resize2fs refuses to grow it further ("New size too large to be expressed in 32 bits"); nothing was changed — ` +
      `convert it to 64bit offline (unmounted: e2fsck -f ${devicePath}, then resize2fs -b ${devicePath}${extents}) and retry, or keep the volume at or below ${volume} bytes (${formatBytes(volume)})`,
  );
}

/**
 * resize2fs refuses to resize an unmounted bigalloc filesystem without its force option
 * ("Resizing bigalloc file systems has not been fully tested. Proceed at your own risk! Use the
 * force option if you want to go ahead anyway."; e2fsprogs resize/main.c, bigalloc_check, called
 * on the offline path only): refused before anything runs, as voe never forces it. Online
 * growth, through the kernel, is not refused.
 */
function bigallocOffline(inspection: Inspection): GrowPlan | null {
  if (inspection.extBigalloc !== true) return null;
  const { device, devicePath, filesystem } = inspection;
  return refuse(
    'FSRESIZE_EXT_BIGALLOC_OFFLINE',
    `${filesystem} on ${device} uses bigalloc and is not mounted; resize2fs refuses to grow an unmounted bigalloc filesystem unless forced ("Resizing bigalloc file systems has not been fully tested"), and voe never forces it; nothing was changed — ` +
      `mount it and grow it online (run voe again once it is mounted; kubelet's expandfs retries), or, only if you accept that risk, grow it offline yourself: e2fsck -f ${devicePath}, then resize2fs -f ${devicePath}`,
  );
}

/**
 * An unmounted ext filesystem is grown (and checked) offline, by writing to the device: only when
 * nothing else uses the device. A program that has it open may have the filesystem mounted
 * where voe cannot see it (a VM's disk, mounted inside the guest; a mount in another node's or
 * container's view of a shared device): resize2fs and e2fsck under it would corrupt it. Their own
 * guard (an exclusive open) only finds mounts and other exclusive openers.
 */
function usedElsewhere(inspection: Inspection, options: PlanOptions): GrowPlan | null {
  const { device, filesystem, users } = inspection;
  if (users === null) {
    return refuse(
      'FSRESIZE_DEVICE_IN_USE',
      `${filesystem} on ${device} is not mounted where voe can use it, and who else uses the device was not looked for; nothing was changed — retry`,
    );
  }
  const { openedBy, holders, disk } = users;
  const backing = users.backing ?? [];
  const backingDevices = backing.filter((b) => b.kind === 'device');
  const target = disk === null ? 'the device' : `the device or its whole disk (${disk})`;
  if (openedBy.length > 0) {
    const what = (opener: DeviceOpener): string => {
      if (opener.backingFile !== undefined) return ` with the backing file ${opener.backingFile}`;
      if (opener.majorMinor === inspection.majorMinor) return '';
      const below = backingDevices.find((b) => b.majorMinor === opener.majorMinor);
      return below === undefined
        ? ` with its whole disk ${opener.majorMinor}`
        : ` with the backing device ${below.path}`;
    };
    const who =
      openedBy
        .slice(0, 5)
        .map((p) => `pid ${p.pid} (${p.command}${what(p)})`)
        .join(', ') + (openedBy.length > 5 ? ` and ${openedBy.length - 5} more` : '');
    const below = openedBy.some(
      (p) =>
        p.backingFile !== undefined || backingDevices.some((b) => b.majorMinor === p.majorMinor),
    );
    return refuse(
      'FSRESIZE_DEVICE_IN_USE',
      `${filesystem} on ${device} is not mounted here, but ${who} ${openedBy.length === 1 ? 'has' : 'have'} ${target}${below ? ' or the backing file or device under it' : ''} open: growing it offline while another program uses it (e.g. a VM whose guest has it mounted) would corrupt it; nothing was changed — grow it where it is in use (e.g. inside the guest), or stop that program and retry; voe sees the processes of its own PID namespace only`,
    );
  }
  if (holders.length > 0) {
    const under = [target, ...backingDevices.map((b) => `the backing device ${b.path}`)].join(
      ' or ',
    );
    return refuse(
      'FSRESIZE_DEVICE_IN_USE',
      `${filesystem} on ${device} is not mounted here, but ${holders.join(', ')} ${holders.length === 1 ? 'is' : 'are'} stacked on ${under} (device-mapper, RAID, loop): writing to it underneath would corrupt what they show; nothing was changed — grow the device on top instead`,
    );
  }
  for (const below of backing) {
    // The device itself, or (for a partition, or a loop device over a loop device) which one.
    const of = inspection.devicePath === `/dev/${below.loop}` ? '' : ` (of ${below.loop})`;
    const what = `${below.kind === 'device' ? 'backing device' : 'backing file'} ${below.path}${of}`;
    if (below.kind === 'unknown') {
      return refuse(
        'FSRESIZE_DEVICE_IN_USE',
        `${filesystem} on ${device} is not mounted here, but what it shows lies in ${below.path}${of}, which does not lead to a file or device here (deleted, or the loop device was set up in another mount namespace): voe cannot see what else uses that data, and growing it offline under another user would corrupt it; nothing was changed — grow it from the mount namespace that set it up`,
      );
    }
    if (below.sharedWith.length > 0) {
      return refuse(
        'FSRESIZE_DEVICE_IN_USE',
        `${filesystem} on ${device} is not mounted here, but its ${what} is also attached as ${below.sharedWith.map((name) => `/dev/${name}`).join(', ')}, which ${below.sharedWith.length === 1 ? 'shows' : 'show'} the same data (mounted or used there, it would be corrupted by an offline grow here); nothing was changed — detach the other loop device${below.sharedWith.length === 1 ? '' : 's'} (losetup -d) if unused, or grow the filesystem where it is in use`,
      );
    }
    if (below.busy) {
      return refuse(
        'FSRESIZE_DEVICE_IN_USE',
        `${filesystem} on ${device} is not mounted here, but its ${what} is in use by the kernel (mounted, perhaps in another mount namespace, or claimed by device-mapper or RAID; an exclusive open of it was refused): growing it offline underneath would corrupt it; nothing was changed — grow the filesystem where it is mounted`,
      );
    }
  }
  const { unreadable } = users;
  if (users.processesHidden === true && options.unreadableProcesses !== 'ignore') {
    return refuse(
      'FSRESIZE_PERMISSION_DENIED',
      `${filesystem} on ${device} is not mounted here, and voe cannot see the node's other processes: it runs in a PID namespace of its own (e.g. a container without hostPID), whose /proc lists only that namespace's processes. ` +
        'Any program outside it may use the device, and growing it offline under a program that uses it would corrupt it; nothing was changed — run voe in the host PID namespace ' +
        '(hostPID: true, or on the node itself), or, only if you know no other program uses the device, pass --ignore-unreadable-processes or set VOE_IGNORE_UNREADABLE_PROCESSES=1 (the FlexVolume driver takes no flags)',
    );
  }
  if (unreadable.length > 0 && options.unreadableProcesses !== 'ignore') {
    // "Could not look" is never taken as "nobody".
    const who =
      unreadable
        .slice(0, 5)
        .map((p) => `pid ${p.pid} (${p.command})`)
        .join(', ') + (unreadable.length > 5 ? ` and ${unreadable.length - 5} more` : '');
    return refuse(
      'FSRESIZE_PERMISSION_DENIED',
      `${filesystem} on ${device} is not mounted here, and the kernel would not show voe which files ${who} ${unreadable.length === 1 ? 'has' : 'have'} open ` +
        '(voe lacks CAP_SYS_PTRACE, or those processes have capabilities voe lacks): any of them may use the device, and growing it offline under a program that uses it would corrupt it; ' +
        'nothing was changed — run voe as root with every capability (as kubelet runs FlexVolume drivers), or, only if you know these processes do not use the device, pass --ignore-unreadable-processes or set VOE_IGNORE_UNREADABLE_PROCESSES=1 (the FlexVolume driver takes no flags)',
      { unreadable },
    );
  }
  return null;
}

function refuse(
  code: ConstructorParameters<typeof FsResizeError>[0],
  message: string,
  details?: Record<string, unknown>,
): GrowPlan {
  return { kind: 'refuse', error: new FsResizeError(code, message, details ? { details } : {}) };
}
