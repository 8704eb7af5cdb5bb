/** One entry of an initramfs: a directory, a regular file, a symbolic link, or a character device node. */
export type NewcEntry =
  | { kind: 'dir'; path: string; mode?: number }
  | { kind: 'file'; path: string; data: Buffer; mode?: number }
  | { kind: 'symlink'; path: string; target: string }
  | { kind: 'char'; path: string; major: number; minor: number; mode?: number };

const TYPE = { dir: 0o040000, file: 0o100000, symlink: 0o120000, char: 0o020000 } as const;

function hex(value: number): string {
  return value.toString(16).padStart(8, '0');
}

function pad4(length: number): Buffer {
  return Buffer.alloc((4 - (length % 4)) % 4);
}

/**
 * The entries as a cpio archive in the "newc" format the kernel unpacks an initramfs from
 * (owned by root, mtime 0, so the same entries give the same bytes). Paths are relative ("init",
 * "bin/busybox"); parents must come before their children. Pure.
 */
export function newcArchive(entries: readonly NewcEntry[]): Buffer {
  const parts: Buffer[] = [];
  const add = (name: string, mode: number, data: Buffer, ino: number, rdev = [0, 0]): void => {
    const nameBytes = Buffer.from(`${name}\0`);
    const header =
      '070701' +
      [
        ino,
        mode,
        0,
        0,
        mode & TYPE.dir ? 2 : 1,
        0,
        data.length,
        0,
        0,
        rdev[0]!,
        rdev[1]!,
        nameBytes.length,
        0,
      ]
        .map(hex)
        .join('');
    parts.push(
      Buffer.from(header),
      nameBytes,
      pad4(110 + nameBytes.length),
      data,
      pad4(data.length),
    );
  };
  entries.forEach((entry, index) => {
    const ino = index + 1;
    if (entry.kind === 'dir')
      add(entry.path, TYPE.dir | (entry.mode ?? 0o755), Buffer.alloc(0), ino);
    else if (entry.kind === 'file')
      add(entry.path, TYPE.file | (entry.mode ?? 0o644), entry.data, ino);
    // A symbolic link's data is its target, as cpio stores it.
    else if (entry.kind === 'symlink')
      add(entry.path, TYPE.symlink | 0o777, Buffer.from(entry.target), ino);
    else
      add(entry.path, TYPE.char | (entry.mode ?? 0o600), Buffer.alloc(0), ino, [
        entry.major,
        entry.minor,
      ]);
  });
  add('TRAILER!!!', 0, Buffer.alloc(0), 0);
  return Buffer.concat(parts);
}
