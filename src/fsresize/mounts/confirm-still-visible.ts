import type { BlockDeviceId } from '../model/block-devices.js';
import { FsResizeError } from '../model/fsresize-error.js';
import type { MountTable } from '../model/mount-table.js';
import type { MountEntry } from '../parse/parse-mountinfo.js';

/** The tools act on what the mount point shows: make sure it still shows the filesystem inspected. */
export async function confirmStillVisible(
  mounts: MountTable,
  id: BlockDeviceId,
  mount: MountEntry | null,
  filesystem: string,
): Promise<void> {
  if (mount === null || (await mounts.visibleMountId(mount.mountPoint)) === mount.mountId) return;
  throw new FsResizeError(
    'FSRESIZE_MOUNT_HIDDEN',
    `${filesystem} on ${id.path} is mounted at ${mount.mountPoint} but hidden by another mount there now (it changed while voe was inspecting it); nothing was changed — unmount what is mounted over it and retry`,
  );
}
