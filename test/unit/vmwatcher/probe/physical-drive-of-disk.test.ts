/**
 * physicalDriveOfDisk: a VMI disk tied to the Windows disk \\.\PhysicalDriveN from the agent's
 * guest-get-fsinfo, by serial, else by the address the domain gives the disk, never by name. The
 * answers have the shape qemu-ga on Windows gives them (qga/commands-win32.c: build_guest_fsinfo
 * names a volume by its GUID path and mounts it at its drive, "System Reserved" without one;
 * build_guest_disk_info writes `dev` as \\.\PhysicalDrive of each volume extent's DiskNumber, and
 * the volume path itself for a volume on no disk such as a CD; get_single_disk_info fills serial,
 * bus-type, pci-controller (the disk's storage controller) and, on SCSI, bus/target/unit from
 * IOCTL_SCSI_GET_ADDRESS), for a guest on HARVESTER_DOMAIN_XML: libvirt's sdb is SCSI unit 0,
 * sdc unit 1, on the virtio-scsi controller at 0000:06:00.0, and sda the SATA cdrom.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { parseDomainDisks } from '../../../../src/vmwatcher/probe/domain-disks.js';
import { filesystemsOfFsinfo } from '../../../../src/vmwatcher/probe/filesystem-list.js';
import { physicalDriveOfDisk } from '../../../../src/vmwatcher/probe/physical-drive-of-disk.js';
import type { DiskIdentity } from '../../../../src/vmwatcher/probe/vmi-disk.js';
import { HARVESTER_DOMAIN_XML } from '../../../support/vmwatcher/harvester-domain.js';

const SCSI = { domain: 0, bus: 6, slot: 0, function: 0 };
const NONE = { domain: -1, bus: -1, slot: -1, function: -1 };

function volume(guid: string, mountpoint: string, disk: object) {
  return {
    name: `\\\\?\\Volume{${guid}}\\`,
    mountpoint,
    type: 'NTFS',
    ...(mountpoint === 'System Reserved' ? {} : { 'used-bytes': 1_000, 'total-bytes': 9_000 }),
    disk: [disk],
  };
}

function scsiDisk(unit: number, drive: number, serial?: string) {
  return {
    'pci-controller': SCSI,
    'bus-type': 'scsi',
    bus: 0,
    target: 0,
    unit,
    ...(serial ? { serial } : {}),
    dev: `\\\\.\\PhysicalDrive${drive}`,
  };
}

const FSINFO = [
  volume('4c1b02c0-0000-0000-0000-000000000001', 'System Reserved', scsiDisk(0, 0)),
  volume('4c1b02c0-0000-0000-0000-000000000002', 'C:\\', scsiDisk(0, 0)),
  volume('4c1b02c0-0000-0000-0000-000000000003', 'E:\\', scsiDisk(1, 1, 'data-e')),
  {
    ...volume('4c1b02c0-0000-0000-0000-000000000004', 'D:\\', {
      'pci-controller': NONE,
      'bus-type': 'unknown',
      bus: 0,
      target: 0,
      unit: 0,
      dev: '\\\\?\\Volume{4c1b02c0-0000-0000-0000-000000000004}',
    }),
    type: 'CDFS',
  },
];

describe('physicalDriveOfDisk', () => {
  const list = filesystemsOfFsinfo(FSINFO);
  const domain = parseDomainDisks(HARVESTER_DOMAIN_XML);
  const rows: Array<{ name: string; disk: DiskIdentity; drive?: string; reason?: RegExp }> = [
    {
      name: 'by serial, whatever the target',
      disk: { serial: 'data-e', bus: 'scsi', target: 'sdz' },
      drive: '\\\\.\\PhysicalDrive1',
    },
    {
      name: 'a serial no disk carries: the reason',
      disk: { serial: 'nowhere', bus: 'scsi', target: 'sdb' },
      reason:
        /no volume in the agent's filesystem list lies on a \\\\\.\\PhysicalDriveN with serial nowhere/,
    },
    {
      name: "no serial, libvirt's sdb (SCSI unit 0): the disk of C: and System Reserved",
      disk: { serial: undefined, bus: 'scsi', target: 'sdb' },
      drive: '\\\\.\\PhysicalDrive0',
    },
    {
      name: "no serial, libvirt's sdc (SCSI unit 1)",
      disk: { serial: undefined, bus: 'scsi', target: 'sdc' },
      drive: '\\\\.\\PhysicalDrive1',
    },
    {
      name: 'no serial, the SATA cdrom: its volume is on no PhysicalDrive',
      disk: { serial: undefined, bus: 'sata', target: 'sda' },
      reason:
        /lies on a \\\\\.\\PhysicalDriveN at disk sda's address \(controller 0000:00:1f\.2 bus 0 target 0 unit 0\)/,
    },
    {
      name: 'no serial, a target the domain does not list: the reason, never a name match',
      disk: { serial: undefined, bus: 'virtio', target: 'vdb' },
      reason: /virsh dumpxml lists no disk vdb/,
    },
  ];
  for (const row of rows)
    it(`ties a disk to its PhysicalDrive ${row.name}`, () => {
      const domainDisk = domain.find((disk) => disk.target === row.disk.target);
      const match = physicalDriveOfDisk(list, row.disk, domainDisk);
      if (row.drive) assert.strictEqual(match.drive, row.drive, match.reason);
      else assert.match(match.reason ?? '', row.reason!);
    });

  it('refuses a serial two disks carry', () => {
    const twice = filesystemsOfFsinfo([
      volume('4c1b02c0-0000-0000-0000-000000000002', 'C:\\', scsiDisk(0, 0, 'same')),
      volume('4c1b02c0-0000-0000-0000-000000000003', 'E:\\', scsiDisk(1, 1, 'same')),
    ]);
    const match = physicalDriveOfDisk(
      twice,
      { serial: 'same', bus: 'scsi', target: 'sdb' },
      undefined,
    );
    assert.match(
      match.reason ?? '',
      /2 Windows disks match, with serial same: \\\\\.\\PhysicalDrive0, \\\\\.\\PhysicalDrive1/,
    );
  });
});
