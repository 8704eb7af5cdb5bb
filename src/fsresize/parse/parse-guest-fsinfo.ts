/** One disk under a guest filesystem (GuestDiskAddress in QEMU's qga/qapi-schema.json). */
export interface GuestFsinfoDisk {
  /** `dev`: /dev/vda on Linux, \\.\PhysicalDrive0 on Windows; null when the agent gave none. */
  dev: string | null;
  serial: string | null;
  busType: string | null;
}

/** One filesystem as guest-get-fsinfo answers it (GuestFilesystemInfo in qga/qapi-schema.json). */
export interface GuestFsinfoEntry {
  /** `name`: the device (sda1) on Linux, the volume GUID path on Windows. */
  name: string;
  /** `mountpoint`: a path on Linux, a drive (C:\) on Windows; empty for a volume without one. */
  mountPoint: string;
  /** `type`: ext4, xfs, NTFS, ... */
  type: string;
  /** `total-bytes` (optional in the schema, QEMU 3.0+); null when absent. */
  totalBytes: number | null;
  disks: GuestFsinfoDisk[];
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * guest-get-fsinfo's answer (`{"return": [...]}` or the list itself) as entries; null when it is
 * neither, or an entry lacks its name, mountpoint or type (all mandatory in the schema). Pure.
 */
export function parseGuestFsinfo(answer: unknown): GuestFsinfoEntry[] | null {
  const list =
    typeof answer === 'object' && answer !== null && !Array.isArray(answer)
      ? (answer as { return?: unknown }).return
      : answer;
  if (!Array.isArray(list)) return null;
  const entries: GuestFsinfoEntry[] = [];
  for (const item of list as Array<Record<string, unknown>>) {
    const name = item?.['name'];
    const mountPoint = item?.['mountpoint'];
    const type = item?.['type'];
    if (typeof name !== 'string' || typeof mountPoint !== 'string' || typeof type !== 'string')
      return null;
    const total = item['total-bytes'];
    entries.push({
      name,
      mountPoint,
      type,
      totalBytes: typeof total === 'number' && Number.isSafeInteger(total) ? total : null,
      disks: (Array.isArray(item['disk'])
        ? (item['disk'] as Array<Record<string, unknown>>)
        : []
      ).map((disk) => ({
        dev: text(disk?.['dev']),
        serial: text(disk?.['serial']),
        busType: text(disk?.['bus-type']),
      })),
    });
  }
  return entries;
}
