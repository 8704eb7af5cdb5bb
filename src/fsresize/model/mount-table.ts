import type { MountEntry } from '../parse/parse-mountinfo.js';

/** The port that lists what is mounted on this node, and tells which mount a path shows. */
export interface MountTable {
  list(): Promise<MountEntry[]>;
  /**
   * The mount id (mountinfo's first field) of the mount that `path` shows now, or null when the
   * path does not exist. A mount hidden by another one mounted over it (or over a parent
   * directory) is in the list, but its mount point shows another mount. Throws a FsResizeError
   * when the path exists but cannot be opened to tell.
   */
  visibleMountId(path: string): Promise<number | null>;
}
