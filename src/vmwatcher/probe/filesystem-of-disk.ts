import { agentDiskSitsAt } from './agent-disk-sits-at.js';
import { describeDomainAddress, type DomainDisk } from './domain-disks.js';
import type { GuestFilesystem } from './filesystem-list.js';
import type { DiskIdentity } from './vmi-disk.js';

/** The filesystem found on a VMI disk, or why none was. */
export type FilesystemMatch =
  { filesystem: GuestFilesystem; reason?: undefined } | { filesystem?: undefined; reason: string };

function largest(filesystems: readonly GuestFilesystem[]): GuestFilesystem | undefined {
  return filesystems.reduce<GuestFilesystem | undefined>(
    (found, fs) => (found === undefined || fs.totalBytes! > found.totalBytes! ? fs : found),
    undefined,
  );
}

/**
 * The largest filesystem with a size on a VMI disk: one whose disks carry the disk's serial;
 * without a serial, one whose disk sits at the domain disk's address (virsh dumpxml), never one
 * found by name (libvirt's target names are not the guest's). Otherwise the reason. Pure.
 */
export function filesystemOfDisk(
  filesystems: readonly GuestFilesystem[],
  disk: DiskIdentity,
  domainDisk: DomainDisk | undefined,
): FilesystemMatch {
  const sized = filesystems.filter((fs) => fs.totalBytes !== undefined);
  if (disk.serial !== undefined) {
    const found = largest(sized.filter((fs) => fs.disks.some((d) => d.serial === disk.serial)));
    return found
      ? { filesystem: found }
      : { reason: `no filesystem with a size sits on the disk with serial ${disk.serial}` };
  }
  if (!domainDisk)
    return { reason: `virsh dumpxml lists no disk ${disk.target ?? '?'} to find it by address` };
  const found = largest(sized.filter((fs) => fs.disks.some((d) => agentDiskSitsAt(d, domainDisk))));
  return found
    ? { filesystem: found }
    : {
        reason: `no filesystem with a size sits at disk ${domainDisk.target}'s address (${describeDomainAddress(domainDisk)})`,
      };
}
