/** What `blkid -p -s TYPE -s PTTYPE -s UUID -o export <device>` found (exit 0). */
export interface BlkidSignature {
  /** Filesystem (or other content) type, e.g. "ext4"; null when none was found. */
  type: string | null;
  /** Partition table type, e.g. "gpt" or "dos"; null when none was found. */
  partitionTable: string | null;
  /** The filesystem's UUID (for btrfs, the filesystem id shared by all its devices); null when none was found. */
  uuid: string | null;
}

/** Parses blkid's KEY=value export format. */
export function parseBlkidExport(stdout: string): BlkidSignature {
  const values = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) values.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return {
    type: values.get('TYPE') || null,
    partitionTable: values.get('PTTYPE') || null,
    uuid: values.get('UUID') || null,
  };
}
