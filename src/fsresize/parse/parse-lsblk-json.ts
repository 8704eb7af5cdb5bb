/**
 * One block device as `lsblk --json --bytes --paths --output
 * NAME,KNAME,PKNAME,TYPE,SIZE,FSTYPE,MOUNTPOINT,PTTYPE` prints it (util-linux 2.38, Debian
 * bookworm's; PARTN is newer and not asked for: the partition's number comes from sfdisk).
 */
export interface LsblkDevice {
  /** NAME with --paths, e.g. /dev/vda1, /dev/mapper/vg0-data. */
  name: string;
  /** KNAME: the kernel's name, e.g. /dev/dm-0. */
  kname: string;
  /** PKNAME: the parent's kernel name (the disk of a partition); null for a disk. */
  parent: string | null;
  /** TYPE: disk, part, lvm, crypt, loop, rom, ... */
  type: string;
  /** SIZE in bytes: the kernel's size of the device now. */
  bytes: number;
  /** FSTYPE as blkid names it (ext4, xfs, btrfs, LVM2_member, crypto_LUKS, ...); null when none. */
  fstype: string | null;
  /** MOUNTPOINT: one mount point of it, null when unmounted ([SWAP] for active swap). */
  mountPoint: string | null;
  /** PTTYPE of a disk that holds a partition table (gpt, dos); null otherwise. */
  partitionTable: string | null;
  /** NAMEs of the devices listed under it (partitions, LVs, LUKS mappings). */
  children: string[];
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** SIZE: a number with --bytes since util-linux 2.33, a string of digits before. */
function bytesOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value) && Number.isSafeInteger(Number(value)))
    return Number(value);
  return null;
}

/**
 * lsblk's JSON tree, flattened in its order (a device before the devices under it). A device
 * under several parents (an LV on two PVs) is listed once, with the children of both. Null when
 * the text is not that JSON or a device lacks its name, type or size. Pure.
 */
export function parseLsblkJson(stdout: string): LsblkDevice[] | null {
  let root: unknown;
  try {
    root = JSON.parse(stdout);
  } catch {
    return null;
  }
  const top = (root as { blockdevices?: unknown } | null)?.blockdevices;
  if (!Array.isArray(top)) return null;
  const byName = new Map<string, LsblkDevice>();
  const visit = (items: unknown[], parentName: string | null): boolean => {
    for (const item of items as Array<Record<string, unknown>>) {
      const name = text(item?.['name']);
      const type = text(item?.['type']);
      const bytes = bytesOf(item?.['size']);
      if (name === null || type === null || bytes === null) return false;
      const known = byName.get(name);
      const device = known ?? {
        name,
        kname: text(item['kname']) ?? name,
        parent: text(item['pkname']) ?? parentName,
        type,
        bytes,
        fstype: text(item['fstype']),
        mountPoint: text(item['mountpoint']),
        partitionTable: text(item['pttype']),
        children: [],
      };
      if (!known) byName.set(name, device);
      const children = Array.isArray(item['children']) ? (item['children'] as unknown[]) : [];
      for (const child of children as Array<Record<string, unknown>>) {
        const childName = text(child?.['name']);
        if (childName !== null && !device.children.includes(childName))
          device.children.push(childName);
      }
      if (!visit(children, name)) return false;
    }
    return true;
  };
  return visit(top, null) ? [...byName.values()] : null;
}
