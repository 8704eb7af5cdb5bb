import type { BlockDeviceId, DeviceUsers } from '../model/block-devices.js';
import { chooseMount, type MountChoice } from '../mounts/choose-mount.js';
import { deviceMounts, mountedByNumber } from '../mounts/device-mounts.js';
import { isSupportedFilesystem, type Inspection } from '../model/inspection.js';
import { measureFilesystem, type FilesystemSize } from '../devices/measure-filesystem.js';
import { mountPathForms } from '../mounts/mount-path-forms.js';
import type { MountEntry } from '../parse/parse-mountinfo.js';
import { emptySignature, probeSignature, type Signature } from '../devices/probe-signature.js';
import type { ResizerPorts } from '../model/resizer-ports.js';

/** An inspection, with the mount it chose (the one the tools act on; null when unmounted). */
export interface InspectedDevice {
  inspection: Inspection;
  mount: MountEntry | null;
}

/**
 * Gathers every fact the plan needs about the device (planGrow), changing nothing: its size and
 * read-only flag, what blkid finds on it, its mounts and the one to use, the filesystem's size,
 * and, when it is not mounted, who else uses it.
 */
export async function inspectDevice(
  ports: ResizerPorts,
  id: BlockDeviceId,
  mountPath: string | undefined,
): Promise<InspectedDevice> {
  const looks = startLooks(ports, id, mountPath);
  const [deviceBytes, deviceReadOnly, all, wantedPaths] = await looks.reads;
  // A device of 0 bytes has nothing to probe (planGrow refuses it as empty): what blkid says is not used.
  const signature =
    deviceBytes === 0
      ? await looks.probing.then(emptySignature, emptySignature)
      : await looks.probing;
  const users = deviceBytes === 0 ? null : await looks.users;
  const found = await deviceMounts(ports, id, signature, all);
  const wanted =
    mountPath === undefined || wantedPaths === undefined
      ? undefined
      : { given: mountPath, paths: wantedPaths };
  const choice = chooseMount(id.path, found, wanted);
  const size =
    isSupportedFilesystem(signature.filesystem) && signature.partitionTable === null
      ? await measureFilesystem(ports, id, signature.filesystem, choice.chosen?.mountPoint ?? null)
      : null;
  return {
    inspection: inspectionOf(id, { deviceBytes, deviceReadOnly, signature, choice, users, size }),
    mount: choice.chosen,
  };
}

/**
 * Starts the looks that do not depend on each other. blkid (a process) is the slow step: the
 * mountinfo and sysfs reads (made in place) come first, and the look for other users runs while
 * blkid does. The caller awaits each promise, or does not need it (an empty device).
 */
function startLooks(ports: ResizerPorts, id: BlockDeviceId, mountPath: string | undefined) {
  const { devices, mounts } = ports;
  const listing = mounts.list();
  const reads = Promise.all([
    devices.sizeBytes(id),
    devices.readOnly(id),
    listing,
    mountPath === undefined ? undefined : mountPathForms(mountPath),
  ]);
  reads.catch(() => undefined); // awaited by the caller
  const ownProbes = new Set<number>();
  const probing = probeSignature(ports, id, ownProbes);
  probing.catch(() => undefined); // awaited by the caller, or not needed (an empty device)
  // Who else has the device open matters only to an offline grow: looked for (a walk of /proc,
  // beside blkid, which it leaves alone) only when mountinfo lists no mount of the device.
  const users = listing.then((entries) =>
    entries.some((entry) => mountedByNumber(entry, id))
      ? null
      : devices.users(id, { skipPids: ownProbes }),
  );
  users.catch(() => undefined); // awaited by the caller, or not needed (an empty device)
  return { reads, probing, users };
}

/** Pure: the Inspection made of what was found. */
function inspectionOf(
  id: BlockDeviceId,
  found: {
    deviceBytes: number;
    deviceReadOnly: boolean;
    signature: Signature;
    choice: MountChoice;
    users: DeviceUsers | null;
    size: FilesystemSize | null;
  },
): Inspection {
  const { signature, choice, size } = found;
  return {
    device: id.path,
    devicePath: id.realPath,
    majorMinor: id.majorMinor,
    deviceBytes: found.deviceBytes,
    deviceReadOnly: found.deviceReadOnly,
    filesystem: signature.filesystem,
    partitionTable: signature.partitionTable,
    filesystemBytes: size?.bytes ?? null,
    blockBytes: size?.blockBytes ?? null,
    mountPoint: choice.chosen?.mountPoint ?? null,
    mountReadOnly: choice.chosen?.readOnly ?? false,
    mountPointStacked: choice.chosenStacked,
    mountPoints: choice.visible,
    hiddenMountPoints: choice.hidden,
    unusableMountPoints: choice.unusable,
    btrfs: size?.btrfs ?? null,
    users: found.users,
    ...(size?.extCheckNeeded === undefined ? {} : { extCheckNeeded: size.extCheckNeeded }),
    ...(size?.extErrors === undefined ? {} : { extErrors: size.extErrors }),
    ...(size?.extPageBytes === undefined ? {} : { extPageBytes: size.extPageBytes }),
    ...(size?.ext64bit === undefined ? {} : { ext64bit: size.ext64bit }),
    ...(size?.extBigalloc === undefined ? {} : { extBigalloc: size.extBigalloc }),
  };
}
