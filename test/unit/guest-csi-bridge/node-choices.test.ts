import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { HostVmi } from '../../../src/guest-csi-bridge/host/host-objects.js';
import { pickDeviceLink } from '../../../src/guest-csi-bridge/node/pick-device-link.js';
import { pickNodeId } from '../../../src/guest-csi-bridge/node/pick-node-id.js';
import { parseEndpoint } from '../../../src/guest-csi-bridge/server/parse-endpoint.js';
import { hasCode } from '../../support/guest-csi-bridge/has-code.js';
import { expectThrow } from '../../support/expect-error.js';

describe('pickDeviceLink (by-id names that contain the volume id)', () => {
  const id = 'pvc-0b6f3c1e-5f0e-4d55-9f8e-2c1b1a7e1e11';
  const serial = `scsi-0QEMU_QEMU_HARDDISK_drive-ua-${id}`;
  const table: Array<[string, string, string[], string | undefined]> = [
    ['KubeVirt hotplug serial', id, ['ata-QEMU_DVD', serial], serial],
    ['partitions left out', id, [`${serial}-part1`, serial], serial],
    [
      'a name ending with the id wins over one that only contains it',
      'vol-1',
      ['scsi-x-vol-10', 'scsi-x-vol-1'],
      'scsi-x-vol-1',
    ],
    [
      'otherwise the first in order',
      'vol-1',
      ['scsi-b-vol-1-x', 'scsi-a-vol-1-x'],
      'scsi-a-vol-1-x',
    ],
    ['none', id, ['ata-QEMU_DVD'], undefined],
    ['an empty id matches nothing', '', ['anything'], undefined],
  ];
  for (const [name, volumeId, names, expected] of table)
    it(name, () => assert.strictEqual(pickDeviceLink(names, volumeId), expected));
});

describe('pickNodeId (as Harvester finds the guest node VM)', () => {
  const vmis: HostVmi[] = [
    { metadata: { name: 'guest-a' }, status: { interfaces: [{ mac: '52:54:00:aa:aa:aa' }] } },
    {
      metadata: { name: 'guest-b' },
      status: { interfaces: [{ mac: '52:54:00:BB:BB:BB' }, { mac: 'ee:ee:ee:ee:ee:ee' }] },
    },
  ];
  it('the VMI with one of our MAC addresses (any case)', () => {
    assert.strictEqual(pickNodeId('node-x', ['52:54:00:bb:bb:bb'], vmis), 'guest-b');
  });
  it("Calico's ee:ee:ee:ee:ee:ee and the zero address match nothing", () => {
    assert.strictEqual(
      pickNodeId('node-x', ['ee:ee:ee:ee:ee:ee', '00:00:00:00:00:00'], vmis),
      'node-x',
    );
  });
  it('else the node name', () => {
    assert.strictEqual(pickNodeId('node-x', ['02:00:00:00:00:01'], vmis), 'node-x');
    assert.strictEqual(pickNodeId('node-x', [], []), 'node-x');
  });
});

describe('parseEndpoint', () => {
  it('unix:///abs, unix:/abs and a plain absolute path', () => {
    assert.strictEqual(parseEndpoint('unix:///csi/csi.sock'), '/csi/csi.sock');
    assert.strictEqual(parseEndpoint('unix:/csi/csi.sock'), '/csi/csi.sock');
    assert.strictEqual(parseEndpoint('/csi/csi.sock'), '/csi/csi.sock');
  });
  it('refuses relative paths, other schemes and paths the kernel cannot bind', () => {
    expectThrow(() => parseEndpoint('unix://csi.sock'), hasCode('CSI_ENDPOINT_INVALID'));
    expectThrow(() => parseEndpoint('tcp://127.0.0.1:10000'), hasCode('CSI_ENDPOINT_INVALID'));
    expectThrow(
      () => parseEndpoint(`unix:///${'x'.repeat(120)}`),
      hasCode('CSI_ENDPOINT_INVALID', /at most 107/),
    );
  });
});
