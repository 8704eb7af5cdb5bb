import type { DeviceUsers } from './block-devices.js';
import type { PlanOptions } from './grow-plan.js';

/** The filesystems the core knows how to grow. */
export const SUPPORTED_FILESYSTEMS = ['ext2', 'ext3', 'ext4', 'xfs', 'btrfs'] as const;
export type SupportedFilesystem = (typeof SUPPORTED_FILESYSTEMS)[number];

export function isSupportedFilesystem(type: string | null): type is SupportedFilesystem {
  return type !== null && (SUPPORTED_FILESYSTEMS as readonly string[]).includes(type);
}

/** Everything the core found out about a device before deciding anything. */
export interface Inspection {
  /** The device path as given. */
  device: string;
  /** The device with symlinks resolved. */
  devicePath: string;
  majorMinor: string;
  deviceBytes: number;
  deviceReadOnly: boolean;
  /** blkid TYPE (e.g. "ext4", "vfat"); null when the device holds no recognisable filesystem. */
  filesystem: string | null;
  /** blkid PTTYPE (e.g. "gpt"); null when there is no partition table. */
  partitionTable: string | null;
  /** Bytes the filesystem covers on this device; null when not measured (unsupported or unformatted). */
  filesystemBytes: number | null;
  /** The filesystem's block (allocation unit) size; null when not measured. */
  blockBytes: number | null;
  /**
   * The mount point the core would use (the one asked for, else a read-write one), always one
   * that shows this filesystem now; null when unmounted or mounted only where another mount hides it.
   */
  mountPoint: string | null;
  mountReadOnly: boolean;
  /**
   * A mount of another filesystem is listed at `mountPoint` too, under the one used (hidden by
   * it). xfs_growfs looks its mount point up in the mount table and takes the first mount there:
   * it would size the filesystem from the hidden one's device. Other mounts of this same
   * filesystem there (a bind mount over itself, propagation duplicates) do not count.
   */
  mountPointStacked: boolean;
  /** Every mount point of this device on the node that shows it. */
  mountPoints: string[];
  /**
   * Mount points of this device (at the asked mount path, when one was given) that another
   * mount hides: in mountinfo, but the path shows another filesystem. Never used. A mount point
   * where another mount of this device is on top is not one of them (it shows this device).
   */
  hiddenMountPoints: string[];
  /**
   * Mount points of this device that could not be opened to see what they show (e.g. a FUSE
   * mount whose daemon is gone), each with the error (`CODE: message`). Never used; they stop
   * nothing while another mount point can be used.
   */
  unusableMountPoints: Array<{ mountPoint: string; reason: string }>;
  /** btrfs only: this device's id in the filesystem and the number of devices it spans. */
  btrfs: { devid: number; devices: number } | null;
  /**
   * Who else uses the device (other processes that have it open, devices stacked on it; see
   * BlockDevices.users): an unmounted filesystem that something else uses (e.g. a VM's disk,
   * mounted inside the guest) is never grown offline. Null when not looked for: the device is
   * mounted on the node (the kernel owns the filesystem, and looking costs a walk of /proc).
   */
  users: DeviceUsers | null;
  /** ext only: whether an offline resize2fs would first demand `e2fsck -f` (see parseExtSuperblock). */
  extCheckNeeded?: boolean;
  /** ext only: whether the filesystem records errors (see parseExtSuperblock's errorsRecorded). */
  extErrors?: boolean;
  /**
   * ext only: the system page size (FsResizerOptions.pageBytes). resize2fs grows ext to a whole
   * number of pages when the page is larger than the block (see extGrowTarget); absent: to whole blocks.
   */
  extPageBytes?: number;
  /** ext only: whether the filesystem has the 64bit feature (see parseExtSuperblock's bit64); without it, at most 2^32-1 blocks. */
  ext64bit?: boolean;
  /** ext only: whether the filesystem has the bigalloc feature (see parseExtSuperblock's bigalloc); never grown offline. */
  extBigalloc?: boolean;
}

export interface GrowOptions {
  /** Where the filesystem is mounted; must be a mount point of the device when given. */
  mountPath?: string;
  /** Decide and report, change nothing. */
  dryRun?: boolean;
  /** The volume is a raw block device for the workload: there is no filesystem to grow. */
  blockMode?: boolean;
  /**
   * The size in bytes the volume was grown to (kubelet's new size): see
   * PlanOptions.requiredDeviceBytes. Checked under the device lock, before anything is run.
   */
  requiredDeviceBytes?: PlanOptions['requiredDeviceBytes'];
  /** See PlanOptions.readOnlyMount; default 'leave'. */
  readOnlyMount?: PlanOptions['readOnlyMount'];
  /** See PlanOptions.readOnlyDevice; default 'leave'. */
  readOnlyDevice?: PlanOptions['readOnlyDevice'];
  /**
   * A request to stop (e.g. voe got SIGTERM; its `reason` names it). Honoured between steps only:
   * before the lock is taken, while waiting for it, and before each tool that changes the
   * filesystem — never by stopping a grow or check tool midway. Once the grow tool has run, the
   * grow finishes and returns its result; before that it rejects with FSRESIZE_INTERRUPTED.
   */
  signal?: AbortSignal;
  /** Called once when another process holds the device's lock and this call waits for it (the holder's pid). */
  onLockWait?: (holderPid: string) => void;
}

/** What `grow` did. Sizes are in bytes; null where there is no filesystem to measure. */
export interface GrowResult {
  action: 'grown' | 'noop';
  /** Human explanation of what happened (or, for a dry run, what would happen). */
  reason: string;
  device: string;
  filesystem: string | null;
  mountPoint: string | null;
  deviceBytes: number;
  beforeBytes: number | null;
  afterBytes: number | null;
  dryRun: boolean;
  /** The tool command line that ran (or would run). */
  command: string[] | null;
  /**
   * The check that ran (or, in a dry run, would run) before the grow tool: `e2fsck -f -p
   * <device>` before an offline ext grow that resize2fs would refuse unchecked. `exitCode` is
   * e2fsck's (0 no errors, 1 errors corrected: preen mode wrote fixes); null in a dry run.
   * null when no check ran.
   */
  precheck: PrecheckReport | null;
}

/** A filesystem check that ran before the grow tool (exitCode null: a dry run, it would run). */
export interface PrecheckReport {
  command: string[];
  exitCode: number | null;
}

/** A filesystem check that did run. */
export type PrecheckRan = PrecheckReport & { exitCode: number };
