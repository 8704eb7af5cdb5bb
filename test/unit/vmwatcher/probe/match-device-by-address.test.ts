/**
 * Tying a libvirt target to the guest's device by address, on Harvester's disk layout with no
 * serials: a virtio root disk, a SATA cdrom, and two SCSI hotplug disks on a virtio-scsi
 * controller. libvirt names them vda, sda (cdrom), sdb, sdc; the guest names the cdrom sr0 and the
 * SCSI disks sda, sdb. The domain XML is in libvirt's shape (q35 with PCIe root ports, as
 * KubeVirt's domains are); the guest's paths are what readlink -f /sys/block/<dev>/device gives.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { parseDomainDisks } from '../../../../src/vmwatcher/probe/domain-disks.js';
import { matchDeviceByAddress } from '../../../../src/vmwatcher/probe/match-device-by-address.js';
import {
  parseGuestBlockDevices,
  type GuestBlockDevice,
} from '../../../../src/vmwatcher/probe/guest-block-devices.js';
import type { VirtualMachineInstance } from '../../../../src/model/index.js';
import { HARVESTER_DOMAIN_XML as DOMAIN_XML } from '../../../support/vmwatcher/harvester-domain.js';
import { VirshGuestProbe } from '../../../../src/vmwatcher/probe/virsh-guest-probe.js';
import type { VirshHost, VirshTransport } from '../../../../src/vmwatcher/probe/virsh-transport.js';

const GI = 1024n ** 3n;
/** GUEST_BLOCK_SCRIPT's output in that guest: name, 512-byte sectors, serial (none), sysfs path. */
const GUEST_LISTING = [
  `vda\t${(10n * GI) / 512n}\t\t/sys/devices/pci0000:00/0000:00:02.6/0000:07:00.0/virtio5`,
  `sr0\t0\t\t/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0`,
  `sda\t${(20n * GI) / 512n}\t\t/sys/devices/pci0000:00/0000:00:02.5/0000:06:00.0/virtio4/host6/target6:0:0/6:0:0:0`,
  `sdb\t${(5n * GI) / 512n}\t\t/sys/devices/pci0000:00/0000:00:02.5/0000:06:00.0/virtio4/host6/target6:0:0/6:0:0:1`,
].join('\n');

describe('matching a disk to the guest by address', () => {
  const disks = parseDomainDisks(DOMAIN_XML);
  const devices = parseGuestBlockDevices(GUEST_LISTING);
  const byTarget = (target: string) => disks.find((disk) => disk.target === target)!;

  it('reads each disk and its controller address from virsh dumpxml', () => {
    assert.deepStrictEqual(
      disks.map((disk) => [disk.target, disk.bus, disk.serial]),
      [
        ['vda', 'virtio', undefined],
        ['sda', 'sata', undefined],
        ['sdb', 'scsi', undefined],
        ['sdc', 'scsi', undefined],
      ],
    );
    assert.deepStrictEqual(byTarget('vda').pci, { domain: 0, bus: 7, slot: 0, function: 0 });
    assert.deepStrictEqual(byTarget('sdc').drive, { controller: 0, bus: 0, target: 0, unit: 1 });
    assert.deepStrictEqual(byTarget('sdc').controllerPci, {
      domain: 0,
      bus: 6,
      slot: 0,
      function: 0,
    });
    assert.deepStrictEqual(byTarget('sda').controllerPci, {
      domain: 0,
      bus: 0,
      slot: 0x1f,
      function: 2,
    });
  });

  const table: Array<[string, string, bigint]> = [
    ['the virtio root disk vda is the guest vda', 'vda', 10n * GI],
    ["the SATA cdrom (libvirt's sda) is the guest's sr0", 'sda', 0n],
    ["libvirt's sdb (SCSI unit 0) is the guest's sda", 'sdb', 20n * GI],
    ["libvirt's sdc (SCSI unit 1) is the guest's sdb", 'sdc', 5n * GI],
  ];
  const names: Record<string, string> = { vda: 'vda', sda: 'sr0', sdb: 'sda', sdc: 'sdb' };
  for (const [name, target, bytes] of table)
    it(name, () => {
      const match = matchDeviceByAddress(devices, byTarget(target));
      assert.isUndefined(match.reason, match.reason);
      assert.strictEqual(match.device?.name, names[target]);
      assert.strictEqual(match.device?.bytes, bytes);
    });

  it('never takes a device by its name: no device at the address is a reason', () => {
    const withoutUnit1: GuestBlockDevice[] = devices.filter((device) => device.name !== 'sdb');
    const match = matchDeviceByAddress(withoutUnit1, byTarget('sdc'));
    assert.isUndefined(match.device);
    assert.match(match.reason ?? '', /no guest block device sits at disk sdc's address/);
  });

  it('two devices at one address is a reason, not a guess', () => {
    const twice = [...devices, { ...devices[2]!, name: 'sdz' }];
    const match = matchDeviceByAddress(twice, byTarget('sdb'));
    assert.isUndefined(match.device);
    assert.match(match.reason ?? '', /2 guest block devices .*sda, sdz/);
  });

  it('a disk without an address in the XML is a reason', () => {
    const match = matchDeviceByAddress(devices, {
      target: 'vdb',
      bus: 'virtio',
      serial: undefined,
      pci: undefined,
      drive: undefined,
      controllerPci: undefined,
    });
    assert.match(match.reason ?? '', /no address/);
  });
});

describe('VirshGuestProbe on the no-serial layout', () => {
  /** virsh next to that domain: domblkinfo, dumpxml, and guest-exec answering GUEST_LISTING. */
  function layoutVirsh(listing: string): VirshTransport {
    return {
      name: 'scripted-layout',
      virsh: async (_host: VirshHost, args: readonly string[]) => {
        if (args[0] === 'domblkinfo')
          return `Capacity:       ${5n * GI}\nAllocation:     0\nPhysical:       ${5n * GI}\n`;
        if (args[0] === 'dumpxml') return DOMAIN_XML;
        const command = JSON.parse(args[args.length - 1]!) as { execute: string };
        if (command.execute === 'guest-exec') return '{"return":{"pid":3}}';
        return JSON.stringify({
          return: {
            exited: true,
            exitcode: 0,
            'out-data': Buffer.from(listing).toString('base64'),
          },
        });
      },
    };
  }
  const vmi: VirtualMachineInstance = {
    metadata: { namespace: 'default', name: 'vm1' },
    spec: { domain: { devices: { disks: [{ name: 'data-b', disk: { bus: 'scsi' } }] } } },
    status: { phase: 'Running', conditions: [{ type: 'AgentConnected', status: 'True' }] },
  };
  const target = { vmi, volumeName: 'data-b', target: 'sdc', claimName: 'data-b' };

  it("reads libvirt's sdc as the guest's sdb, not the guest's own sdc", async () => {
    const reading = await new VirshGuestProbe({ transport: layoutVirsh(GUEST_LISTING) }).read(
      target,
    );
    assert.deepStrictEqual(reading, {
      hypervisorBytes: 5n * GI,
      guestBytes: 5n * GI,
      guestEvidence: 'BlockDevice',
      guestDevice: 'sdb',
    });
  });

  it('is unverifiable with the reason when nothing sits at the address', async () => {
    const listing = GUEST_LISTING.split('\n')
      .filter((line) => !line.startsWith('sdb\t'))
      .join('\n');
    const reading = await new VirshGuestProbe({ transport: layoutVirsh(listing) }).read(target);
    assert.isUndefined(reading.guestBytes);
    assert.match(reading.guestUnverifiable ?? '', /no guest block device sits at disk sdc/);
    assert.include(reading.guestUnverifiableRemedy ?? '', 'serial');
  });
});
