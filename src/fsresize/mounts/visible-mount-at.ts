import type { MountTable } from '../model/mount-table.js';
import { mountPathForms } from './mount-path-forms.js';
import type { MountEntry } from '../parse/parse-mountinfo.js';

/**
 * The mount that `mountPath` shows now, if it is a mount point (written in any form
 * mountPathForms accepts, e.g. with a trailing slash): of several mounts stacked there, the one
 * on top (the others are hidden). Null when nothing is mounted there.
 */
export async function visibleMountAt(
  mounts: MountTable,
  mountPath: string,
): Promise<MountEntry | null> {
  const entries = await mounts.list();
  for (const path of await mountPathForms(mountPath)) {
    const id = await mounts.visibleMountId(path);
    const entry = entries.find((m) => m.mountId === id && m.mountPoint === path);
    if (entry !== undefined) return entry;
  }
  return null;
}
