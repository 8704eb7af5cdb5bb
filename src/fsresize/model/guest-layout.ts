import type { LsblkDevice } from '../parse/parse-lsblk-json.js';
import type { LvmLayout } from '../parse/parse-lvm-reports.js';
import type { PartitionTable } from '../parse/parse-sfdisk-json.js';

/** A filesystem's own size, as the core's probes read it (dumpe2fs, xfs_io statfs, btrfs dump-super). */
export interface GuestFilesystemSize {
  bytes: number;
  blockBytes: number;
  /** ext only: the guest's page size, and whether the filesystem has the 64bit feature. */
  extPageBytes?: number;
  ext64bit?: boolean;
  /** btrfs only: this device's id in the filesystem and how many devices it spans. */
  btrfs?: { devid: number; devices: number };
}

/** What a Linux guest reports, read with its own tools (see docs/guest-growth.md). */
export interface GuestLayout {
  /** lsblk --json --bytes --paths (parseLsblkJson). */
  blockDevices: readonly LsblkDevice[];
  /** sfdisk --json of each partitioned disk, by the disk's path (parseSfdiskJson). */
  partitionTables: Readonly<Record<string, PartitionTable>>;
  /** pvs/vgs/lvs (parseLvmReports); null when the guest has no LVM tools or none was read. */
  lvm: LvmLayout | null;
  /** The size of each mounted filesystem of the disk, by its device path. */
  filesystems: Readonly<Record<string, GuestFilesystemSize>>;
  /** The tools the guest has (found on its PATH, as `command -v` finds them). */
  tools: ReadonlySet<string>;
}
