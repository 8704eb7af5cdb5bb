/** A by-id name of a partition (`...-part1`): never the volume's own device. */
const PARTITION = /-part\d+$/;

/**
 * The by-id entry of the volume among `names` (a /dev/disk/by-id listing): the names that contain
 * the volume id (KubeVirt names a hotplugged disk `ua-<volume>`, so the guest sees e.g.
 * `scsi-0QEMU_QEMU_HARDDISK_drive-ua-<volume>`), partitions left out; one that ends with the id
 * is preferred (an id may be contained in a longer one's name), then the first in sorted order.
 */
export function pickDeviceLink(names: readonly string[], volumeId: string): string | undefined {
  if (volumeId === '') return undefined;
  const candidates = names
    .filter((name) => name.includes(volumeId) && !PARTITION.test(name))
    .sort();
  return candidates.find((name) => name.endsWith(volumeId)) ?? candidates[0];
}
