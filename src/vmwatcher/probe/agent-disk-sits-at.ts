import { samePci, type DomainDisk } from './domain-disks.js';
import type { GuestDiskAddress } from './filesystem-list.js';

/**
 * Whether the agent's disk address is the domain disk's (QGA's build_guest_fsinfo_for_pci_dev:
 * pci-controller is the first PCI function down the device's path driven by virtio-pci, ahci and
 * the like, so the virtio-blk device itself or the SCSI/SATA controller; the SCSI unit is the
 * LUN, the SATA unit the AHCI port. On Windows, qga/commands-win32.c get_pci_info gives the PCI
 * function of the disk's parent storage controller, and get_single_disk_info the LUN as `unit`
 * from IOCTL_SCSI_GET_ADDRESS). The bus type is not compared: Windows' agent names the storage
 * driver's bus. Pure.
 */
export function agentDiskSitsAt(address: GuestDiskAddress, disk: DomainDisk): boolean {
  if (disk.pci) return samePci(address.pciController, disk.pci);
  if (!disk.drive || !disk.controllerPci) return false;
  return samePci(address.pciController, disk.controllerPci) && address.unit === disk.drive.unit;
}
