import { readdir, readFile } from 'node:fs/promises';

/**
 * The devices ("major:minor") of the mounted btrfs filesystem `fsid`, from
 * /sys/fs/btrfs/<fsid>/devices (BlockDevices.btrfsDevices); null when none is mounted.
 */
export async function btrfsDevicesOf(sysfs: string, fsid: string): Promise<string[] | null> {
  // A filesystem id is a UUID: never a path.
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(fsid)) return null;
  const directory = `${sysfs}/fs/btrfs/${fsid.toLowerCase()}/devices`;
  const names = await readdir(directory).catch(() => null);
  if (names === null) return null;
  const numbers = await Promise.all(
    names.map((name) =>
      readFile(`${directory}/${name}/dev`, 'utf8').then(
        (text) => text.trim(),
        () => null,
      ),
    ),
  );
  return numbers.filter((n): n is string => n !== null && /^\d+:\d+$/.test(n));
}
