import { listKernelDirectory, readKernelText } from './kernel-files.js';
import { majorMinorOf } from './major-minor-of.js';
import type { StatWithin } from './stat-within.js';

/** What a loop device's backing path leads to here. */
export type LoopBackingTarget =
  /** A regular file, by identity: "<st_dev>:<st_ino>" (a path may name it otherwise elsewhere). */
  | { kind: 'file'; key: string }
  | { kind: 'device'; majorMinor: string }
  /** Nothing here (a deleted file, a path of another mount namespace), or neither a file nor a device. */
  | { kind: 'unknown' };

/** One loop device, as sysfs shows it. */
export interface LoopEntry {
  /** e.g. "loop3". */
  name: string;
  /** e.g. "7:3"; "" when sysfs did not say. */
  majorMinor: string;
  /** Its backing (/sys/block/<name>/loop/backing_file), or null when it has none (not set up). */
  backing: { path: string; target: LoopBackingTarget } | null;
}

/** What the kernel appends to the name of a backing file that was deleted (d_path). */
const DELETED = ' (deleted)';

/**
 * Every loop device of the node (/sys/block/loop*) with its backing path as the kernel names it,
 * stat'ed within the look's bound (the path may lie on any filesystem): a file by identity, a
 * device by number. The path is the one the loop device was set up with, seen from the mount
 * namespace that set it up: here it may lead nowhere (unknown) or, rarely, to something else.
 */
export async function readLoopTable(sysfs: string, statWithin: StatWithin): Promise<LoopEntry[]> {
  const names = listKernelDirectory(`${sysfs}/block`).filter((name) => /^loop\d+$/.test(name));
  return Promise.all(
    names.map(async (name): Promise<LoopEntry> => {
      const majorMinor = readKernelText(`${sysfs}/block/${name}/dev`)?.trim() ?? '';
      const path =
        readKernelText(`${sysfs}/block/${name}/loop/backing_file`)?.replace(/\n$/, '') ?? null;
      if (path === null || path === '') return { name, majorMinor, backing: null };
      if (!path.startsWith('/') || path.endsWith(DELETED))
        return { name, majorMinor, backing: { path, target: { kind: 'unknown' } } };
      const info = await statWithin(path, `backing file of ${name}`);
      const target: LoopBackingTarget = info?.isBlockDevice()
        ? { kind: 'device', majorMinor: majorMinorOf(info.rdev) }
        : info?.isFile()
          ? { kind: 'file', key: `${info.dev}:${info.ino}` }
          : { kind: 'unknown' };
      return { name, majorMinor, backing: { path, target } };
    }),
  );
}
