import type { GuestBlockDevice } from './guest-block-devices.js';
import type { DiskIdentity } from './vmi-disk.js';

/** virtio-blk passes at most 20 bytes of serial to the guest (VIRTIO_BLK_ID_BYTES). */
const VIRTIO_SERIAL_BYTES = 20;

/**
 * The guest's device of a VMI disk: by serial where the VM sets one (a virtio serial cut to its
 * 20 bytes counts), else by bus and target (the guest's kernel names a bus's disks in the order
 * the hypervisor attached them, which is KubeVirt's target order: vda, vdb; sda, sdb). Undefined
 * when no device matches, or the serial matches more than one. Pure.
 */
export function matchGuestDevice(
  devices: readonly GuestBlockDevice[],
  disk: DiskIdentity,
): GuestBlockDevice | undefined {
  if (disk.serial !== undefined) {
    const short = disk.serial.slice(0, VIRTIO_SERIAL_BYTES);
    const found = devices.filter(
      (device) =>
        device.serial === disk.serial || (device.bus === 'virtio' && device.serial === short),
    );
    return found.length === 1 ? found[0] : undefined;
  }
  if (disk.target === undefined) return undefined;
  return devices.find(
    (device) =>
      device.name === disk.target &&
      (disk.bus === undefined || device.bus === undefined || sameBus(device.bus, disk.bus)),
  );
}

/** KubeVirt's sata disks show under the guest's SCSI layer names (sdX) too. */
function sameBus(guest: string, vmi: string): boolean {
  return (
    guest === vmi || (guest === 'sata' && vmi === 'scsi') || (guest === 'scsi' && vmi === 'sata')
  );
}

/** What the guest lists, for a message when nothing matched. */
export function describeGuestDevices(devices: readonly GuestBlockDevice[]): string {
  if (devices.length === 0) return 'no block devices';
  return devices
    .map(
      (device) =>
        `${device.name} (${device.bus ?? 'bus unknown'}${device.serial ? `, serial ${device.serial}` : ''})`,
    )
    .join(', ');
}
