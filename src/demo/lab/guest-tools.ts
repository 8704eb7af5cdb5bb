/**
 * The guest's own growth tools the lab guest carries (docs/guest-growth.md), from the Debian
 * packages scripts/install-test-deps.sh unpacks: each package and the paths taken from it, as the
 * package installs them (a symbolic link stays one: lvm2's pvs, vgs, ... name the lvm binary).
 * growpart is a sh script: busybox gives it sh, awk, sed, mktemp, readlink; util-linux its flock,
 * blkid and partx.
 */
export const GUEST_TOOLS = [
  {
    package: 'e2fsprogs',
    paths: ['sbin/resize2fs', 'sbin/dumpe2fs', 'sbin/mke2fs', 'sbin/mkfs.ext4', 'sbin/e2fsck'],
  },
  { package: 'xfsprogs', paths: ['usr/sbin/xfs_growfs', 'usr/sbin/xfs_io', 'sbin/mkfs.xfs'] },
  { package: 'btrfs-progs', paths: ['bin/btrfs', 'sbin/mkfs.btrfs'] },
  { package: 'fdisk', paths: ['sbin/sfdisk'] },
  {
    package: 'util-linux',
    paths: [
      'bin/lsblk',
      'bin/findmnt',
      'usr/bin/partx',
      'usr/bin/resizepart',
      'usr/bin/flock',
      'sbin/blkid',
      'sbin/blockdev',
    ],
  },
  {
    package: 'lvm2',
    paths: [
      'sbin/lvm',
      'sbin/pvs',
      'sbin/vgs',
      'sbin/lvs',
      'sbin/pvcreate',
      'sbin/vgcreate',
      'sbin/lvcreate',
      'sbin/pvresize',
      'sbin/lvextend',
    ],
  },
  { package: 'cloud-guest-utils', paths: ['usr/bin/growpart'] },
] as const;

/** The package names of GUEST_TOOLS. */
export const GUEST_TOOL_PACKAGES: readonly string[] = GUEST_TOOLS.map((tool) => tool.package);
