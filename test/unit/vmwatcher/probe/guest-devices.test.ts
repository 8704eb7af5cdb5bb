import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { VirtualMachineInstance } from '../../../../src/model/index.js';
import {
  busOfDevicePath,
  parseGuestBlockDevices,
  type GuestBlockDevice,
} from '../../../../src/vmwatcher/probe/guest-block-devices.js';
import {
  describeGuestDevices,
  matchGuestDevice,
} from '../../../../src/vmwatcher/probe/match-guest-device.js';
import { diskIdentity } from '../../../../src/vmwatcher/probe/vmi-disk.js';

/** What GUEST_BLOCK_SCRIPT prints in a guest with a virtio root disk, a virtio data disk, a SCSI disk and a loop device. */
const LISTING = [
  'loop0\t0\t\t/sys/devices/virtual/block/loop0',
  'sda\t20971520\tvoe-scsi-data\t/sys/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:0/0:0:0:1',
  'vda\t20971520\t\t/sys/devices/pci0000:00/0000:00:05.0/virtio2',
  'vdb\t41943040\tvm1-disk-1-a9x2k-ser\t/sys/devices/pci0000:00/0000:00:06.0/virtio3',
  'garbage line',
  '',
].join('\n');

const GI = 1024n ** 3n;

describe('guest block devices', () => {
  it('reads the listing: name, bytes from 512-byte sectors, serial, bus', () => {
    const devices = parseGuestBlockDevices(LISTING);
    assert.deepStrictEqual(
      devices.map((d) => [d.name, d.bytes, d.serial, d.bus]),
      [
        ['loop0', 0n, undefined, undefined],
        ['sda', 10n * GI, 'voe-scsi-data', 'scsi'],
        ['vda', 10n * GI, undefined, 'virtio'],
        ['vdb', 20n * GI, 'vm1-disk-1-a9x2k-ser', 'virtio'],
      ],
    );
  });

  it('knows the bus from the sysfs path', () => {
    assert.strictEqual(
      busOfDevicePath('/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0'),
      'sata',
    );
    assert.strictEqual(busOfDevicePath('/sys/devices/virtual/block/loop0'), undefined);
  });

  describe('matching a VMI disk', () => {
    const devices = parseGuestBlockDevices(LISTING);
    it('by serial, whatever the name', () => {
      assert.strictEqual(
        matchGuestDevice(devices, { serial: 'voe-scsi-data', bus: 'scsi', target: 'sdc' })?.name,
        'sda',
      );
    });
    it('by a virtio serial cut to 20 bytes', () => {
      assert.strictEqual(
        matchGuestDevice(devices, {
          serial: 'vm1-disk-1-a9x2k-serial-long',
          bus: 'virtio',
          target: 'vdb',
        })?.name,
        'vdb',
      );
    });
    it('not when the serial matches none, or several', () => {
      assert.isUndefined(
        matchGuestDevice(devices, { serial: 'other', bus: 'virtio', target: 'vda' }),
      );
      const twice: GuestBlockDevice[] = [
        { name: 'vda', bytes: 1n, serial: 'same', bus: 'virtio' },
        { name: 'vdb', bytes: 1n, serial: 'same', bus: 'virtio' },
      ];
      assert.isUndefined(matchGuestDevice(twice, { serial: 'same', bus: 'virtio', target: 'vda' }));
    });
    it('by bus and target without a serial', () => {
      assert.strictEqual(
        matchGuestDevice(devices, { serial: undefined, bus: 'virtio', target: 'vda' })?.bytes,
        10n * GI,
      );
      assert.isUndefined(
        matchGuestDevice(devices, { serial: undefined, bus: 'scsi', target: 'vda' }),
      );
      assert.strictEqual(
        matchGuestDevice(devices, { serial: undefined, bus: 'sata', target: 'sda' })?.name,
        'sda',
      );
      assert.isUndefined(
        matchGuestDevice(devices, { serial: undefined, bus: 'virtio', target: undefined }),
      );
    });
    it('describes what the guest has', () => {
      assert.include(describeGuestDevices(devices), 'sda (scsi, serial voe-scsi-data)');
      assert.strictEqual(describeGuestDevices([]), 'no block devices');
    });
  });

  it("reads a VMI disk's serial and bus, else the bus from the target", () => {
    const vmi: VirtualMachineInstance = {
      metadata: { namespace: 'ns', name: 'vm1' },
      spec: {
        domain: {
          devices: {
            disks: [
              { name: 'disk-0', disk: { bus: 'virtio' }, serial: ' root-0 ' },
              { name: 'data', lun: { bus: 'scsi' } },
              { name: 'plain', disk: {} },
            ],
          },
        },
      },
    };
    assert.deepStrictEqual(diskIdentity(vmi, 'disk-0', 'vda'), {
      serial: 'root-0',
      bus: 'virtio',
      target: 'vda',
    });
    assert.deepStrictEqual(diskIdentity(vmi, 'data', 'sda'), {
      serial: undefined,
      bus: 'scsi',
      target: 'sda',
    });
    assert.strictEqual(diskIdentity(vmi, 'plain', 'vdb').bus, 'virtio');
    assert.strictEqual(diskIdentity(vmi, 'unknown', 'sdb').bus, 'scsi');
  });
});
