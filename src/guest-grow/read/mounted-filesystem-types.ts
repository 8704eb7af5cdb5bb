import type { LsblkDevice, MountEntry } from '../../fsresize/index.js';

/** What reads the guest's mount table: its own kernel's view, as the agent's processes see it. */
export const MOUNTINFO_ARGV = ['cat', '/proc/self/mountinfo'] as const;

/** The devices lsblk shows mounted but with no FSTYPE: udev's database did not (yet) name their filesystem. */
export function mountedWithoutType(devices: readonly LsblkDevice[]): LsblkDevice[] {
  return devices.filter((device) => device.mountPoint !== null && device.fstype === null);
}

/**
 * The devices with the filesystem type of the mount table where lsblk gave none. lsblk takes
 * MOUNTPOINT from the kernel's mount table (libmount) but FSTYPE from udev's database, which
 * udev rewrites on the `change` event that follows a write closing the disk (sfdisk's): an entry
 * whose probe found no filesystem leaves a mounted one without FSTYPE (the lab guest showed
 * btrfs on /dev/sdd1 so, at times, as its disk grew). The mount table's type (the
 * entry at lsblk's mount point) is the kernel's own. Pure.
 */
export function withMountedTypes(
  devices: readonly LsblkDevice[],
  mounts: readonly MountEntry[],
): LsblkDevice[] {
  return devices.map((device) => {
    if (device.mountPoint === null || device.fstype !== null) return device;
    // The last entry at a mount point is the one over the others (what the path shows).
    const mount = mounts.filter((entry) => entry.mountPoint === device.mountPoint).pop();
    return mount === undefined || mount.fsType === ''
      ? device
      : { ...device, fstype: mount.fsType };
  });
}
