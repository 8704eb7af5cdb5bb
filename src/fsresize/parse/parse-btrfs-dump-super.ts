/** What `btrfs inspect-internal dump-super <device>` says about this device's share of the filesystem. */
export interface BtrfsDeviceSize {
  /** dev_item.total_bytes: how much of this device the filesystem uses. */
  bytes: number;
  /** sectorsize: the filesystem's allocation unit. */
  sectorSize: number;
  /** dev_item.devid: this device's id inside the filesystem. */
  devid: number;
  /** num_devices: how many devices the filesystem spans. */
  devices: number;
}

/** Parses dump-super output; null when a needed field is missing (not a btrfs superblock). */
export function parseBtrfsDumpSuper(stdout: string): BtrfsDeviceSize | null {
  const field = (name: string): number | null => {
    const match = new RegExp(`^${name.replace(/\./g, '\\.')}\\s+(\\d+)\\s*$`, 'm').exec(stdout);
    return match?.[1] === undefined ? null : Number(match[1]);
  };
  const bytes = field('dev_item.total_bytes');
  const sectorSize = field('sectorsize');
  const devid = field('dev_item.devid');
  const devices = field('num_devices');
  if (bytes === null || sectorSize === null || devid === null || devices === null) return null;
  return { bytes, sectorSize, devid, devices };
}
