/** A block device, identified by its kernel numbers (aliases such as /dev/disk/by-id resolve to one). */
export interface BlockDeviceId {
  /** The path the caller gave. */
  path: string;
  /** The path with every symlink resolved, e.g. /dev/sdb. */
  realPath: string;
  /** "major:minor", as in /proc/self/mountinfo. */
  majorMinor: string;
}

/** A process that has a device open. */
export interface DeviceOpener {
  pid: number;
  /** Its command name (/proc/<pid>/comm), e.g. "qemu-system-x86". */
  command: string;
  /**
   * What it has open ("major:minor"): the device itself, the whole disk the device is a partition
   * of, or a loop device's backing device; with `backingFile`, the loop device whose backing file it has open.
   */
  majorMinor: string;
  /** The loop device's backing file it has open (as the kernel names it), when that is what it has open. */
  backingFile?: string;
}

/**
 * What a loop device shows (the device itself, its whole disk, or a loop device further down):
 * /sys/block/<loop>/loop/backing_file. Whatever else shows the same file or device shows the same
 * data, and an offline grow through this loop device would write under it.
 */
export interface LoopBacking {
  /** The loop device, e.g. "loop3". */
  loop: string;
  /** Its backing file or device as the kernel names it. */
  path: string;
  /**
   * A regular file, a block device ("major:minor" in `majorMinor`), or unknown: the path leads to
   * nothing here, or to something else than a file or device (the file was deleted, or the loop
   * device was set up in another mount namespace).
   */
  kind: 'file' | 'device' | 'unknown';
  majorMinor?: string;
  /** Other loop devices over the same file or device (e.g. "loop5"): each shows the same data. */
  sharedWith: string[];
  /**
   * A backing device only: an exclusive open of it was refused, i.e. the kernel has it in use
   * (mounted, perhaps in another mount namespace, or claimed by device-mapper or RAID), or it could not be opened.
   */
  busy: boolean;
}

/** A process whose open files voe may not read (the kernel refuses: EACCES/EPERM). */
export interface UnreadableProcess {
  pid: number;
  /** Its command name (/proc/<pid>/comm), e.g. "qemu-system-x86". */
  command: string;
}

/** Who else uses a device: what an offline grow must not run under. */
export interface DeviceUsers {
  /**
   * Other processes that have the device, the whole disk it is a partition of, or (for a loop
   * device) its backing file or device open (this process and the processes it started are left out). Only the processes of this process's PID
   * namespace can be seen.
   */
  openedBy: DeviceOpener[];
  /**
   * Processes whose open files the kernel would not show (voe lacks CAP_SYS_PTRACE, or they have
   * capabilities voe lacks, or they belong to another user and voe is not root): any of them may
   * have the device open. This process's children are left out.
   */
  unreadable: UnreadableProcess[];
  /**
   * True when the /proc looked at does not list the node's processes: its pid 1 is not in the
   * initial PID namespace (voe runs in a PID namespace of its own, e.g. a container without
   * hostPID, with that namespace's /proc). Any process outside it may have the device open unseen.
   */
  processesHidden?: boolean;
  /**
   * Kernel devices stacked on it, on its whole disk or on a loop device's backing device: sysfs
   * holders (e.g. "dm-0" for device-mapper, "md0" for RAID) and loop devices whose backing file it
   * is (e.g. "loop3").
   */
  holders: string[];
  /** The whole disk ("major:minor") when the device is a partition of it, else null. */
  disk: string | null;
  /**
   * When the device (or its whole disk) is a loop device: its backing, then that of each loop
   * device below (a loop device over a loop device). Absent otherwise. Processes that have a
   * backing file or device open are in `openedBy`; devices stacked on a backing device in `holders`.
   */
  backing?: LoopBacking[];
}

/** The port for facts about block devices. */
export interface BlockDevices {
  /** Fails with FSRESIZE_DEVICE_NOT_FOUND or FSRESIZE_NOT_A_BLOCK_DEVICE. */
  identify(path: string): Promise<BlockDeviceId>;
  /** The device's size in bytes (what `blockdev --getsize64` says). */
  sizeBytes(device: BlockDeviceId): Promise<number>;
  /** Whether the kernel marks the device read-only (what `blockdev --getro` says). */
  readOnly(device: BlockDeviceId): Promise<boolean>;
  /** Reads `length` bytes at `offset` through the kernel's buffered block device (like dumpe2fs does). */
  read(device: BlockDeviceId, offset: number, length: number): Promise<Uint8Array>;
  /**
   * The devices ("major:minor") of the mounted btrfs filesystem whose id is `fsid` (what the
   * kernel lists in /sys/fs/btrfs/<fsid>/devices), or null when no btrfs with that id is mounted.
   */
  btrfsDevices(fsid: string): Promise<string[] | null>;
  /**
   * Keeps the device open (read-only, not exclusive) until the returned function is called, so
   * the kernel keeps its page cache of the device between the steps of one operation (Linux
   * drops it on the last close). Never blocks other openers, mounts or exclusive opens.
   */
  hold(device: BlockDeviceId): Promise<() => Promise<void>>;
  /**
   * Who else has the device open or is stacked on it, now. `skipPids`: processes of this operation
   * (a probe still running) not to look at at all; this process and its children are never counted.
   */
  users(device: BlockDeviceId, options?: { skipPids?: ReadonlySet<number> }): Promise<DeviceUsers>;
}
