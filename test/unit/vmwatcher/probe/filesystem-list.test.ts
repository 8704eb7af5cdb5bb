/**
 * The agent's filesystem list and finding a disk's filesystem in it: by serial, else by the
 * address the domain gives the disk, never by name. The guest's answer has the shape of QGA's
 * guest-get-fsinfo (qga/qapi-schema.json GuestFilesystemInfo, GuestDiskAddress) as the Linux agent
 * fills it (build_guest_fsinfo_for_pci_dev: pci-controller is the virtio-blk device or the SCSI
 * controller; the SCSI unit is the LUN), for the guest of HARVESTER_DOMAIN_XML: its sda is
 * libvirt's sdb and its sdb libvirt's sdc.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { parseDomainDisks } from '../../../../src/vmwatcher/probe/domain-disks.js';
import { filesystemsOfFsinfo } from '../../../../src/vmwatcher/probe/filesystem-list.js';
import { filesystemOfDisk } from '../../../../src/vmwatcher/probe/filesystem-of-disk.js';
import type { DiskIdentity } from '../../../../src/vmwatcher/probe/vmi-disk.js';
import { agentDisk } from '../../../support/vmwatcher/agent-disk.js';
import { HARVESTER_DOMAIN_XML } from '../../../support/vmwatcher/harvester-domain.js';

const VIRTIO = { domain: 0, bus: 7, slot: 0, function: 0 };
const SCSI = { domain: 0, bus: 6, slot: 0, function: 0 };

function entry(name: string, mountpoint: string, totalBytes: number, disk: object) {
  return {
    name,
    mountpoint,
    type: 'ext4',
    'used-bytes': 1_000,
    'total-bytes': totalBytes,
    disk: [disk],
  };
}

const FSINFO = [
  entry('vda1', '/', 9_000_000_000, {
    'pci-controller': VIRTIO,
    'bus-type': 'virtio',
    bus: 0,
    target: 0,
    unit: 0,
    dev: '/dev/vda1',
  }),
  entry('sda', '/data-a', 19_000_000_000, {
    'pci-controller': SCSI,
    'bus-type': 'scsi',
    bus: 0,
    target: 0,
    unit: 0,
    dev: '/dev/sda',
  }),
  entry('sdb', '/data-b', 4_000_000_000, {
    'pci-controller': SCSI,
    'bus-type': 'scsi',
    bus: 0,
    target: 0,
    unit: 1,
    serial: 'data-b',
    dev: '/dev/sdb',
  }),
  entry('sdb1', '/mnt', 1_000, {
    'pci-controller': { domain: -1, bus: -1, slot: -1, function: -1 },
    'bus-type': 'unknown',
  }),
];

describe('the agent filesystem list', () => {
  it("reads guest-get-fsinfo with each disk's address; -1 (not known) reads as undefined", () => {
    const list = filesystemsOfFsinfo(FSINFO);
    assert.lengthOf(list, 4);
    assert.deepStrictEqual(list[1], {
      diskName: 'sda',
      mountPoint: '/data-a',
      totalBytes: 19_000_000_000n,
      disks: [
        agentDisk({
          busType: 'scsi',
          pciController: SCSI,
          bus: 0,
          target: 0,
          unit: 0,
          dev: '/dev/sda',
        }),
      ],
    });
    assert.deepStrictEqual(list[3]!.disks, [agentDisk({ busType: 'unknown' })]);
    assert.deepStrictEqual(filesystemsOfFsinfo({}), []);
  });

  const list = filesystemsOfFsinfo(FSINFO);
  const domain = parseDomainDisks(HARVESTER_DOMAIN_XML);
  const rows: Array<{ name: string; disk: DiskIdentity; mount?: string; reason?: RegExp }> = [
    {
      name: 'by serial, whatever the name',
      disk: { serial: 'data-b', bus: 'scsi', target: 'sdz' },
      mount: '/data-b',
    },
    {
      name: 'a serial no filesystem carries: the reason',
      disk: { serial: 'nowhere', bus: 'scsi', target: 'sdb' },
      reason: /no filesystem with a size sits on the disk with serial nowhere/,
    },
    {
      name: "no serial, virtio: the filesystem on the disk's PCI function",
      disk: { serial: undefined, bus: 'virtio', target: 'vda' },
      mount: '/',
    },
    {
      name: "no serial, libvirt's sdb (SCSI unit 0): the guest's sda, not the guest's sdb",
      disk: { serial: undefined, bus: 'scsi', target: 'sdb' },
      mount: '/data-a',
    },
    {
      name: "no serial, libvirt's sdc (SCSI unit 1): the guest's sdb",
      disk: { serial: undefined, bus: 'scsi', target: 'sdc' },
      mount: '/data-b',
    },
    {
      name: 'no serial, the SATA cdrom: nothing sits there',
      disk: { serial: undefined, bus: 'sata', target: 'sda' },
      reason:
        /no filesystem with a size sits at disk sda's address \(controller 0000:00:1f\.2 bus 0 target 0 unit 0\)/,
    },
    {
      name: 'no serial, a target the domain does not list: the reason, never a name match',
      disk: { serial: undefined, bus: 'virtio', target: 'vdb' },
      reason: /virsh dumpxml lists no disk vdb/,
    },
  ];
  for (const row of rows)
    it(`finds a disk's filesystem ${row.name}`, () => {
      const domainDisk = domain.find((disk) => disk.target === row.disk.target);
      const match = filesystemOfDisk(list, row.disk, domainDisk);
      if (row.mount) assert.strictEqual(match.filesystem?.mountPoint, row.mount, match.reason);
      else assert.match(match.reason ?? '', row.reason!);
    });

  it('takes the largest of the filesystems on one disk', () => {
    const two = filesystemsOfFsinfo([
      entry('vda1', '/boot', 500_000_000, { 'pci-controller': VIRTIO, 'bus-type': 'virtio' }),
      entry('vda2', '/', 9_000_000_000, { 'pci-controller': VIRTIO, 'bus-type': 'virtio' }),
    ]);
    const vda = domain.find((disk) => disk.target === 'vda');
    const match = filesystemOfDisk(two, { serial: undefined, bus: 'virtio', target: 'vda' }, vda);
    assert.strictEqual(match.filesystem?.mountPoint, '/');
  });
});
