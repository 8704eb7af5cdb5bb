import type { MountTable } from './mount-table.js';
import type { MountEntry } from './parse-mountinfo.js';

/**
 * The mount that `mountPoint` shows now, if `mountPoint` is a mount point: of several mounts
 * stacked there, the one on top (the others are hidden). Null when nothing is mounted there.
 */
export async function visibleMountAt(mounts: MountTable, mountPoint: string): Promise<MountEntry | null> {
  const id = await mounts.visibleMountId(mountPoint);
  if (id === null) return null;
  return (await mounts.list()).find((m) => m.mountId === id && m.mountPoint === mountPoint) ?? null;
}
