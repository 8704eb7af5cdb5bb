/**
 * The guest's own growth tools the lab guest carries (docs/guest-growth.md), from the Debian
 * packages scripts/install-test-deps.sh unpacks: each package and the paths taken from it, as the
 * package installs them (a symbolic link stays one: lvm2's pvs, vgs, ... name the lvm binary).
 * growpart is a sh script: busybox gives it sh, awk, sed, mktemp, readlink; util-linux its flock,
 * blkid and partx. udev runs as in a distribution's guest (lsblk reads a filesystem's type from
 * udev's database; LVM waits for udev's device-mapper rules): systemd-udevd with the rules for
 * block devices, device-mapper and LVM names.
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
      'lib/udev/rules.d/56-lvm.rules',
    ],
  },
  {
    package: 'dmsetup',
    paths: [
      'sbin/dmsetup',
      'lib/udev/rules.d/55-dm.rules',
      'lib/udev/rules.d/60-persistent-storage-dm.rules',
      'lib/udev/rules.d/95-dm-notify.rules',
    ],
  },
  {
    package: 'udev',
    paths: [
      'bin/udevadm',
      'lib/systemd/systemd-udevd',
      'lib/udev/scsi_id',
      'lib/udev/ata_id',
      'lib/udev/rules.d/50-udev-default.rules',
      'lib/udev/rules.d/60-block.rules',
      'lib/udev/rules.d/60-persistent-storage.rules',
      'lib/udev/rules.d/64-btrfs.rules',
    ],
  },
  { package: 'cloud-guest-utils', paths: ['usr/bin/growpart'] },
] as const;

/** The package names of GUEST_TOOLS. */
export const GUEST_TOOL_PACKAGES: readonly string[] = GUEST_TOOLS.map((tool) => tool.package);
