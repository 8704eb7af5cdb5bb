import { describeDomainAddress, sysfsPciName, type DomainDisk } from './domain-disks.js';
import type { GuestBlockDevice } from './guest-block-devices.js';

/** The guest's devices that sit where the domain puts the disk; the reason when not exactly one. */
export type AddressMatch =
  { device: GuestBlockDevice; reason?: undefined } | { device?: undefined; reason: string };

/** The PCI functions along a sysfs device path, outermost first. */
function pciFunctions(path: string): string[] {
  return [...path.matchAll(/\/([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])(?=\/)/g)].map(
    (match) => match[1]!,
  );
}

/** Whether the device's sysfs path puts it where the domain puts the disk. */
function sitsAt(path: string, disk: DomainDisk): boolean {
  const functions = pciFunctions(path);
  if (disk.pci)
    return (
      disk.bus === 'virtio' &&
      /\/virtio\d+$/.test(path) &&
      functions.at(-1) === sysfsPciName(disk.pci)
    );
  if (!disk.drive || !disk.controllerPci) return false;
  if (!functions.includes(sysfsPciName(disk.controllerPci))) return false;
  if (disk.bus === 'sata') {
    // libvirt's unit is the AHCI port; Linux numbers the ports of the first controller ata1.. in order.
    return disk.drive.controller === 0 && new RegExp(`/ata${disk.drive.unit + 1}/`).test(path);
  }
  // virtio-scsi: the guest's H:C:T:L has channel = bus, target = target, lun = unit.
  const hctl = /\/\d+:(\d+):(\d+):(\d+)$/.exec(path);
  return (
    hctl !== null &&
    Number(hctl[1]) === disk.drive.bus &&
    Number(hctl[2]) === disk.drive.target &&
    Number(hctl[3]) === disk.drive.unit
  );
}

/**
 * The guest's device of a domain disk by the address the hypervisor gave it (virsh dumpxml), not
 * by name: libvirt's target names are not the guest's (a SATA cdrom is sr0, SCSI disks are named
 * in the order the guest finds them). The device whose sysfs path ends at the virtio-blk disk's
 * PCI function; for SCSI and SATA, the one under the controller's PCI function at the drive's
 * place. Exactly one must match; else the reason. Pure.
 */
export function matchDeviceByAddress(
  devices: readonly GuestBlockDevice[],
  disk: DomainDisk,
): AddressMatch {
  if (!disk.pci && !(disk.drive && disk.controllerPci))
    return {
      reason: `virsh dumpxml gives disk ${disk.target} no address to find it by in the guest`,
    };
  const found = devices.filter((device) => device.path !== undefined && sitsAt(device.path, disk));
  if (found.length === 1) return { device: found[0]! };
  const where = describeDomainAddress(disk);
  return {
    reason:
      found.length === 0
        ? `no guest block device sits at disk ${disk.target}'s address (${where})`
        : `${found.length} guest block devices sit at disk ${disk.target}'s address (${where}): ${found.map((device) => device.name).join(', ')}`,
  };
}
