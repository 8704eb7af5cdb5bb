import { physicalDriveNumber } from '../../fsresize/index.js';
import { agentDiskSitsAt } from './agent-disk-sits-at.js';
import { describeDomainAddress, type DomainDisk } from './domain-disks.js';
import type { GuestDiskAddress, GuestFilesystem } from './filesystem-list.js';
import type { DiskIdentity } from './vmi-disk.js';

/** The Windows disk found for a VMI disk, or why none was. */
export type PhysicalDriveMatch =
  { drive: string; reason?: undefined } | { drive?: undefined; reason: string };

/**
 * The Windows disk (\\.\PhysicalDriveN) of a VMI disk, from the disks guest-get-fsinfo lists
 * under the guest's volumes (QGA's GuestDiskAddress: qga/commands-win32.c build_guest_disk_info
 * writes `dev` as \\.\PhysicalDrive of each volume extent's DiskNumber, and get_single_disk_info
 * fills `serial` from the disk's storage device descriptor, `bus-type`, `pci-controller` and, on
 * SCSI, `bus`/`target`/`unit`). Matched as filesystemOfDisk matches: by the disk's serial; without
 * a serial, by the domain disk's address (virsh dumpxml); never by name. A disk that no volume
 * lies on is not listed, so it is not found. Exactly one drive must match; else the reason. Pure.
 */
export function physicalDriveOfDisk(
  filesystems: readonly GuestFilesystem[],
  disk: DiskIdentity,
  domainDisk: DomainDisk | undefined,
): PhysicalDriveMatch {
  const addresses = filesystems.flatMap((fs) => fs.disks);
  let on: (address: GuestDiskAddress) => boolean;
  let where: string;
  if (disk.serial !== undefined) {
    on = (address) => address.serial?.trim() === disk.serial;
    where = `with serial ${disk.serial}`;
  } else if (domainDisk) {
    on = (address) => agentDiskSitsAt(address, domainDisk);
    where = `at disk ${domainDisk.target}'s address (${describeDomainAddress(domainDisk)})`;
  } else
    return { reason: `virsh dumpxml lists no disk ${disk.target ?? '?'} to find it by address` };
  const drives = [
    ...new Set(
      addresses
        .filter(on)
        .map((address) => address.dev ?? '')
        .filter((dev) => physicalDriveNumber(dev) !== undefined),
    ),
  ];
  if (drives.length === 1) return { drive: drives[0]! };
  return {
    reason:
      drives.length === 0
        ? `no volume in the agent's filesystem list lies on a \\\\.\\PhysicalDriveN ${where}`
        : `${drives.length} Windows disks match, ${where}: ${drives.join(', ')}`,
  };
}
