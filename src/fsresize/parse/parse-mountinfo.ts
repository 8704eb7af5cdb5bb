/** One line of /proc/<pid>/mountinfo (see proc(5)). */
export interface MountEntry {
  mountId: number;
  parentId: number;
  /** "major:minor" of the filesystem's st_dev (anonymous for btrfs, e.g. "0:45"). */
  majorMinor: string;
  /** The path inside the filesystem that is mounted (not "/" for bind mounts of a subdirectory). */
  root: string;
  mountPoint: string;
  mountOptions: string[];
  fsType: string;
  source: string;
  superOptions: string[];
  /** Read-only for this mount point or for the whole superblock. */
  readOnly: boolean;
}

/** Undoes the octal escapes the kernel writes for space, tab, newline and backslash. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_m, octal: string) =>
    String.fromCharCode(parseInt(octal, 8)),
  );
}

/** Parses the text of /proc/self/mountinfo; malformed lines are skipped. */
export function parseMountinfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (separator < 6 || fields.length < separator + 3) continue;
    const [id, parent, majorMinor, root, mountPoint, options] = fields as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const mountOptions = options.split(',');
    const superOptions = (fields[separator + 3] ?? '').split(',');
    entries.push({
      mountId: Number(id),
      parentId: Number(parent),
      majorMinor,
      root: unescape(root),
      mountPoint: unescape(mountPoint),
      mountOptions,
      fsType: fields[separator + 1] ?? '',
      source: unescape(fields[separator + 2] ?? ''),
      superOptions,
      readOnly: mountOptions.includes('ro') || superOptions.includes('ro'),
    });
  }
  return entries;
}

/** A filesystem that reports no device of its own (major 0: btrfs, and every filesystem without a block device). */
export function isAnonymousMount(entry: MountEntry): boolean {
  return entry.majorMinor.startsWith('0:');
}
