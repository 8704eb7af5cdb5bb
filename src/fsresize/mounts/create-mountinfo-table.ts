import { constants, readFileSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { FsResizeError } from '../model/fsresize-error.js';
import { parseMountinfo } from '../parse/parse-mountinfo.js';
import type { MountTable } from '../model/mount-table.js';

/**
 * Linux's O_PATH (010000000 in asm-generic/fcntl.h, used by x86, arm, arm64, powerpc, s390 and
 * riscv; alpha, parisc and sparc differ): Node's fs.constants does not export it. An O_PATH file
 * descriptor only names the file: nothing is opened (a socket is not connected to, a FIFO does
 * not block, a device node's driver is not called), no read permission on it is needed, and
 * /proc/self/fdinfo shows its mnt_id like any other descriptor's.
 */
const O_PATH = 0o10000000;

/** What an error opening a mount point means, for a message that is true (root is not asked to become root). */
function cannotOpen(mountPoint: string, code: string, cause: unknown): FsResizeError {
  const root = process.geteuid?.() === 0;
  if ((code === 'EACCES' || code === 'EPERM') && !root) {
    return new FsResizeError(
      'FSRESIZE_PERMISSION_DENIED',
      `cannot open ${mountPoint} to see which filesystem it shows (${code}); nothing was changed — run voe as root on the node`,
      { cause },
    );
  }
  return new FsResizeError(
    'FSRESIZE_MOUNT_INACCESSIBLE',
    `cannot open ${mountPoint} to see which filesystem it shows (${code}${root ? ', as root' : ''}; e.g. a FUSE mount whose daemon is gone or that refuses other users, a stale NFS mount); nothing was changed — check that mount (ls -ld ${mountPoint}), unmount it if it is dead, or pass another mount point of the device`,
    { cause },
  );
}

/**
 * The production MountTable: reads a mountinfo file (by default /proc/self/mountinfo) on every
 * call; `visibleMountId` opens the path with O_PATH (only naming it: a bind-mounted socket, FIFO
 * or device node is not opened, see O_PATH above; not following a final symlink) and reads the
 * kernel's `mnt_id` for that file descriptor from /proc/self/fdinfo (Linux >= 3.15). This is
 * exact for every filesystem, btrfs included, whose st_dev differs from mountinfo's major:minor.
 * A path that cannot be opened is FSRESIZE_MOUNT_INACCESSIBLE (FSRESIZE_PERMISSION_DENIED for
 * EACCES/EPERM when voe is not root).
 */
export function createMountinfoTable(path = '/proc/self/mountinfo'): MountTable {
  return {
    async list() {
      // Read in place: procfs builds the text without waiting on any device, and reading it
      // through the thread pool costs four round trips that a process start can hold up.
      return parseMountinfo(readFileSync(path, 'utf8'));
    },
    async visibleMountId(mountPoint) {
      let handle;
      try {
        handle = await open(mountPoint, O_PATH | constants.O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return null;
        throw cannotOpen(mountPoint, code, error);
      }
      try {
        const fdinfo = await readFile(`/proc/self/fdinfo/${handle.fd}`, 'utf8');
        const id = /^mnt_id:\s*(\d+)\s*$/m.exec(fdinfo)?.[1];
        if (id === undefined) {
          throw new FsResizeError(
            'FSRESIZE_UNEXPECTED_OUTPUT',
            `/proc/self/fdinfo has no mnt_id (Linux older than 3.15?): cannot tell which filesystem ${mountPoint} shows; nothing was changed`,
          );
        }
        return Number(id);
      } finally {
        await handle.close();
      }
    },
  };
}
