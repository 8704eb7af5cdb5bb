import { constants } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { FsResizeError } from './fsresize-error.js';
import { parseMountinfo, type MountEntry } from './parse-mountinfo.js';

/** The port that lists what is mounted on this node, and tells which mount a path shows. */
export interface MountTable {
  list(): Promise<MountEntry[]>;
  /**
   * The mount id (mountinfo's first field) of the mount that `path` shows now, or null when the
   * path does not exist. A mount hidden by another one mounted over it (or over a parent
   * directory) is in the list, but its mount point shows another mount.
   */
  visibleMountId(path: string): Promise<number | null>;
}

/**
 * The production MountTable: reads a mountinfo file (by default /proc/self/mountinfo) on every
 * call; `visibleMountId` opens the path (read-only, not following a final symlink, never
 * blocking) and reads the kernel's `mnt_id` for that file descriptor from /proc/self/fdinfo
 * (Linux >= 3.15). This is exact for every filesystem, btrfs included, whose st_dev differs from
 * mountinfo's major:minor.
 */
export function createMountinfoTable(path = '/proc/self/mountinfo'): MountTable {
  return {
    async list() {
      return parseMountinfo(await readFile(path, 'utf8'));
    },
    async visibleMountId(mountPoint) {
      let handle;
      try {
        handle = await open(mountPoint, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return null;
        throw new FsResizeError(code === 'EACCES' || code === 'EPERM' ? 'FSRESIZE_PERMISSION_DENIED' : 'FSRESIZE_DEVICE_IO',
          `cannot open ${mountPoint} to see which filesystem it shows (${code}); nothing was changed — run voe as root on the node`, { cause: error });
      }
      try {
        const fdinfo = await readFile(`/proc/self/fdinfo/${handle.fd}`, 'utf8');
        const id = /^mnt_id:\s*(\d+)\s*$/m.exec(fdinfo)?.[1];
        if (id === undefined) {
          throw new FsResizeError('FSRESIZE_UNEXPECTED_OUTPUT', `/proc/self/fdinfo has no mnt_id (Linux older than 3.15?): cannot tell which filesystem ${mountPoint} shows; nothing was changed`);
        }
        return Number(id);
      } finally {
        await handle.close();
      }
    },
  };
}
