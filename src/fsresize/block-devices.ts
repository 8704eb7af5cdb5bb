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
  /** What it has open ("major:minor"): the device itself, or the whole disk the device is a partition of. */
  majorMinor: string;
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
   * Other processes that have the device, or the whole disk it is a partition of, open (this
   * process and the processes it started are left out). Only the processes of this process's PID
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
   * Kernel devices stacked on it or on its whole disk: sysfs holders (e.g. "dm-0" for
   * device-mapper, "md0" for RAID) and loop devices whose backing file it is (e.g. "loop3").
   */
  holders: string[];
  /** The whole disk ("major:minor") when the device is a partition of it, else null. */
  disk: string | null;
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
