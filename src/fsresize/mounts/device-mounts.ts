import type { BlockDeviceId } from '../model/block-devices.js';
import type { MountCandidate } from './choose-mount.js';
import { isFsResizeError } from '../model/fsresize-error.js';
import { isAnonymousMount, type MountEntry } from '../parse/parse-mountinfo.js';
import type { ResizerPorts } from '../model/resizer-ports.js';
import type { Signature } from '../devices/probe-signature.js';

/**
 * Whether a mountinfo entry is a filesystem with the device's own number: on that device,
 * whatever its source says (a name given at mount time, which may since name another device).
 * btrfs reports an anonymous number (major 0) instead; see deviceMounts.
 */
export function mountedByNumber(entry: MountEntry, id: BlockDeviceId): boolean {
  return entry.majorMinor === id.majorMinor;
}

/**
 * Every mountinfo entry of the device, each with whether its mount point shows it now (or why
 * that could not be seen). btrfs mounts carry an anonymous number and a source naming one of the
 * filesystem's devices: one is a mount of this device only when the device holds btrfs and the
 * kernel lists it among the devices of that mounted filesystem (/sys/fs/btrfs/<fsid>/devices),
 * and the source now leads to one of those devices. A source string alone is never enough: the
 * name may have been given to another device since (an ext4 taken for a mounted btrfs would be
 * grown offline under its users). The source of any other anonymous mount (tmpfs, FUSE, overlay)
 * names no device and is never resolved (it may lie on a filesystem that never answers).
 */
export async function deviceMounts(
  ports: Pick<ResizerPorts, 'devices' | 'mounts'>,
  id: BlockDeviceId,
  signature: Signature,
  all: MountEntry[],
): Promise<MountCandidate[]> {
  const matches = await entriesOfDevice(ports, id, signature, all);
  return Promise.all(matches.map((entry) => candidateOf(ports, entry, all)));
}

/** The entries of `all` that are mounts of the device (see deviceMounts). */
async function entriesOfDevice(
  { devices }: Pick<ResizerPorts, 'devices'>,
  id: BlockDeviceId,
  signature: Signature,
  all: MountEntry[],
): Promise<MountEntry[]> {
  const members =
    signature.filesystem === 'btrfs' && signature.uuid !== null
      ? await devices.btrfsDevices(signature.uuid)
      : null;
  const memberOf = members !== null && members.includes(id.majorMinor) ? members : null;
  const found = await Promise.all(
    all.map(async (entry): Promise<boolean> => {
      if (mountedByNumber(entry, id)) return true;
      if (
        memberOf === null ||
        !isAnonymousMount(entry) ||
        entry.fsType !== 'btrfs' ||
        !entry.source.startsWith('/')
      )
        return false;
      const source = await devices.identify(entry.source).catch(() => null);
      return source !== null && memberOf.includes(source.majorMinor);
    }),
  );
  return all.filter((_entry, i) => found[i]);
}

/** A mount of the device, with whether its mount point shows it now and whether it is stacked. */
async function candidateOf(
  { mounts }: Pick<ResizerPorts, 'mounts'>,
  entry: MountEntry,
  all: MountEntry[],
): Promise<MountCandidate> {
  // Stacked: another filesystem is listed at the same mount point (one of the two hides the
  // other). Another mount of this same filesystem there is not: propagation lists every mount
  // twice on some nodes (kubernetes/kubernetes#56704), `mount --bind D D` does it too, and
  // whichever of them xfs_growfs finds first, it sizes the filesystem from this device.
  const stacked = all.some(
    (other) =>
      other !== entry &&
      other.mountPoint === entry.mountPoint &&
      other.majorMinor !== entry.majorMinor,
  );
  try {
    return {
      entry,
      visible: (await mounts.visibleMountId(entry.mountPoint)) === entry.mountId,
      stacked,
    };
  } catch (error) {
    // One mount point that cannot be opened (a dead FUSE mount...) makes that mount unusable,
    // not the device: chooseMount raises it only when no other mount can be used instead.
    if (!isFsResizeError(error)) throw error;
    return { entry, visible: false, stacked, unusable: error };
  }
}
