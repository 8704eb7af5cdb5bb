import type { BlockDevices } from './block-devices.js';
import type { CommandRunner } from './command-runner.js';
import type { MountTable } from './mount-table.js';

/** What the steps of one resizer work through (see createFsResizer): its ports and their settings. */
export interface ResizerPorts {
  /** Runs every external tool. */
  runner: CommandRunner;
  /** What is mounted. */
  mounts: MountTable;
  /** Device facts. */
  devices: BlockDevices;
  /** Each inspection tool's timeout (blkid, xfs_io, btrfs dump-super). */
  probeMs: number;
  /** The grow and check tools' timeout. */
  growMs: number;
  /** The system page size (FsResizerOptions.pageBytes). */
  pageBytes: number;
}
