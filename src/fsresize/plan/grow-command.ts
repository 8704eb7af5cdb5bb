import type { SupportedFilesystem } from '../model/inspection.js';

/** A tool and its arguments. */
export interface ToolCommand {
  tool: string;
  args: string[];
}

/** btrfs: this device's id in the filesystem and how many devices it spans. */
export interface BtrfsMember {
  devid: number;
  devices: number;
}

/**
 * The command that grows a filesystem to fill its device: `resize2fs <device>` for ext2/3/4
 * (online or offline), `xfs_growfs -d <mountpoint>` for xfs and `btrfs filesystem resize
 * max|<devid>:max <mountpoint>` for btrfs (both grow only mounted). `max` alone means devid 1,
 * which a single-device btrfs may not have (its first device was replaced or removed), so the
 * devid is named unless it is 1 of 1. One place for every runner: the node's and the guest's.
 */
export function growCommand(filesystem: 'ext2' | 'ext3' | 'ext4', devicePath: string): ToolCommand;
export function growCommand(
  filesystem: SupportedFilesystem,
  devicePath: string,
  mountPoint: string,
  btrfs?: BtrfsMember | null,
): ToolCommand;
export function growCommand(
  filesystem: SupportedFilesystem,
  devicePath: string,
  mountPoint?: string,
  btrfs?: BtrfsMember | null,
): ToolCommand {
  switch (filesystem) {
    case 'ext2':
    case 'ext3':
    case 'ext4':
      return { tool: 'resize2fs', args: [devicePath] };
    case 'xfs':
      return { tool: 'xfs_growfs', args: ['-d', mountPoint ?? ''] };
    case 'btrfs': {
      const target =
        btrfs && (btrfs.devices > 1 || btrfs.devid !== 1) ? `${btrfs.devid}:max` : 'max';
      return { tool: 'btrfs', args: ['filesystem', 'resize', target, mountPoint ?? ''] };
    }
  }
}
