/** guest-get-fsinfo as qemu-ga on Windows answers it: C: on a SCSI disk, with its serial when the VM set one. */
export function windowsFsinfo(serial: string | undefined, totalBytes: bigint): string {
  return JSON.stringify({
    return: [
      {
        name: '\\\\?\\Volume{4c1b02c1-d990-11dc-99ae-806e6f6e6963}\\',
        mountpoint: 'C:\\',
        type: 'NTFS',
        'used-bytes': 16045101056,
        'total-bytes': Number(totalBytes),
        disk: [
          {
            'pci-controller': { domain: 0, bus: 2, slot: 1, function: 0 },
            'bus-type': 'scsi',
            bus: 0,
            target: 0,
            unit: 0,
            ...(serial ? { serial } : {}),
            dev: '\\\\.\\PhysicalDrive0',
          },
        ],
      },
      {
        name: '\\\\?\\Volume{4c1b02c0-d990-11dc-99ae-806e6f6e6963}\\',
        mountpoint: '',
        type: 'NTFS',
        'used-bytes': 33554432,
        'total-bytes': 52424704,
        disk: [
          {
            'pci-controller': { domain: 0, bus: 2, slot: 1, function: 0 },
            'bus-type': 'scsi',
            bus: 0,
            target: 0,
            unit: 0,
            ...(serial ? { serial } : {}),
            dev: '\\\\.\\PhysicalDrive0',
          },
        ],
      },
    ],
  });
}
