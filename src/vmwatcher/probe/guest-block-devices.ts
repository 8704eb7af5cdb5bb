/** One block device as the guest lists it (GUEST_BLOCK_SCRIPT). */
export interface GuestBlockDevice {
  /** The kernel's name: vda, sdb. */
  name: string;
  /** /sys/block/<name>/size × 512. */
  bytes: bigint;
  /** virtio-blk: /sys/block/<name>/serial; SCSI: the unit serial number (VPD page 0x80). */
  serial: string | undefined;
  /** virtio, scsi or sata, read from where the device sits in sysfs; undefined when not known. */
  bus: string | undefined;
  /** Where it sits in sysfs (readlink -f /sys/block/<name>/device): its PCI function, SCSI H:C:T:L. */
  path?: string | undefined;
}

/**
 * What the probe runs in the guest through guest-exec (`/bin/sh -c`), the same text every time
 * (nothing of the VMI's is put into it): one line per block device with its name, its size in
 * 512-byte sectors (the unit of /sys/block/<dev>/size whatever the device's block size), its
 * serial, and the sysfs path of its device.
 */
export const GUEST_BLOCK_SCRIPT = [
  'for d in /sys/block/*; do',
  '  [ -e "$d/size" ] || continue',
  '  s=$(cat "$d/serial" 2>/dev/null) || s=',
  '  [ -n "$s" ] || s=$(tail -c +5 "$d/device/vpd_pg80" 2>/dev/null | tr -d "\\000")',
  '  printf "%s\\t%s\\t%s\\t%s\\n" "${d##*/}" "$(cat "$d/size")" "$s" "$(readlink -f "$d/device" 2>/dev/null)"',
  'done',
].join('\n');

/** The bus a sysfs device path shows: .../ataN/... sata; .../hostN/targetH:C:T/H:C:T:L scsi; .../virtioN virtio. */
export function busOfDevicePath(path: string): string | undefined {
  if (/\/ata\d+\//.test(path)) return 'sata';
  if (/\/host\d+\/target\d+:\d+:\d+\/\d+:\d+:\d+:\d+$/.test(path)) return 'scsi';
  if (/\/virtio\d+$/.test(path)) return 'virtio';
  return undefined;
}

/** GUEST_BLOCK_SCRIPT's output as devices; lines that are not four fields with a size are skipped. Pure. */
export function parseGuestBlockDevices(text: string): GuestBlockDevice[] {
  const devices: GuestBlockDevice[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split('\t');
    if (fields.length !== 4 || !/^\d+$/.test(fields[1]!.trim())) continue;
    const [name, sectors, serial, path] = fields as [string, string, string, string];
    devices.push({
      name: name.trim(),
      bytes: BigInt(sectors.trim()) * 512n,
      serial: serial.trim() || undefined,
      bus: busOfDevicePath(path.trim()),
      path: path.trim() || undefined,
    });
  }
  return devices;
}
