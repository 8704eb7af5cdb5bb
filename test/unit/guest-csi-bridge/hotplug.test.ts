import { describe, it } from 'mocha';
import { assert } from 'chai';
import { attachmentOf } from '../../../src/guest-csi-bridge/controller/attachment-of.js';
import { decideHotplugMode } from '../../../src/guest-csi-bridge/controller/decide-hotplug-mode.js';
import {
  hotplugOperations,
  legacyAddVolumeBody,
  legacyRemoveVolumeBody,
  unplugOperations,
} from '../../../src/guest-csi-bridge/controller/hotplug-requests.js';
import type { HostVm, HostVmi } from '../../../src/guest-csi-bridge/host/host-objects.js';

const vm = (volumes: string[] | undefined, disks: string[] | undefined = volumes): HostVm => ({
  metadata: { name: 'guest-1', resourceVersion: '42' },
  spec: {
    template: {
      spec: {
        ...(volumes
          ? {
              volumes: [
                { name: 'rootdisk', persistentVolumeClaim: { claimName: 'guest-1-root' } },
                ...volumes.map((name) => ({
                  name,
                  persistentVolumeClaim: { claimName: name, hotpluggable: true },
                })),
              ],
            }
          : {}),
        domain: {
          devices: disks
            ? {
                disks: [
                  { name: 'rootdisk', disk: { bus: 'virtio' } },
                  ...disks.map((name) => ({ name, disk: { bus: 'scsi' } })),
                ],
              }
            : {},
        },
      },
    },
  },
});
const vmi = (statuses: Array<{ name: string; hotplug?: boolean }>): HostVmi => ({
  metadata: { name: 'guest-1' },
  status: {
    volumeStatus: statuses.map(({ name, hotplug }) => ({
      name,
      target: 'sda',
      ...(hotplug
        ? { hotplugVolume: { attachPodName: 'hp-volume-x' }, phase: 'Ready' }
        : { phase: 'Bound' }),
    })),
  },
});

describe('decideHotplugMode (Harvester server-version)', () => {
  const table: Array<[string | undefined, string]> = [
    ['v1.8.0', 'declarative'],
    ['v1.8.0-rc1', 'declarative'],
    ['v1.9.2', 'declarative'],
    ['v2.0.0', 'declarative'],
    ['v1.7.1', 'legacy'],
    ['v1.6.0', 'legacy'],
    ['1.7', 'legacy'],
    ['master-head', 'declarative'],
    ['', 'declarative'],
    [undefined, 'declarative'],
  ];
  for (const [version, mode] of table)
    it(`${JSON.stringify(version)} -> ${mode}`, () =>
      assert.strictEqual(decideHotplugMode(version), mode));
});

describe('hotplug requests', () => {
  it('declarative hotplug: guarded by resourceVersion, appends the volume and its SCSI disk', () => {
    assert.deepStrictEqual(hotplugOperations(vm([]), 'pvc-1'), [
      { op: 'test', path: '/metadata/resourceVersion', value: '42' },
      {
        op: 'add',
        path: '/spec/template/spec/volumes/-',
        value: { name: 'pvc-1', persistentVolumeClaim: { claimName: 'pvc-1', hotpluggable: true } },
      },
      {
        op: 'add',
        path: '/spec/template/spec/domain/devices/disks/-',
        value: { name: 'pvc-1', disk: { bus: 'scsi' } },
      },
    ]);
  });
  it('each part only when missing; nothing when both are there', () => {
    assert.deepStrictEqual(
      hotplugOperations(vm(['pvc-1'], []), 'pvc-1').map((o) => o.path),
      ['/metadata/resourceVersion', '/spec/template/spec/domain/devices/disks/-'],
    );
    assert.deepStrictEqual(hotplugOperations(vm(['pvc-1']), 'pvc-1'), []);
  });
  it('a VM without volume or disk lists gets them made', () => {
    assert.deepStrictEqual(
      hotplugOperations(vm(undefined, undefined), 'pvc-1').map((o) => o.path),
      [
        '/metadata/resourceVersion',
        '/spec/template/spec/volumes',
        '/spec/template/spec/domain/devices/disks',
      ],
    );
  });
  it('declarative unplug: the lists without the volume, guarded', () => {
    const ops = unplugOperations(vm(['pvc-1', 'pvc-2']), 'pvc-1');
    assert.deepStrictEqual(ops[0], { op: 'test', path: '/metadata/resourceVersion', value: '42' });
    assert.deepStrictEqual(
      (ops[1] as { value: Array<{ name: string }> }).value.map((v) => v.name),
      ['rootdisk', 'pvc-2'],
    );
    assert.deepStrictEqual(
      (ops[2] as { value: Array<{ name: string }> }).value.map((v) => v.name),
      ['rootdisk', 'pvc-2'],
    );
    assert.deepStrictEqual(unplugOperations(vm(['pvc-2']), 'pvc-1'), []);
  });
  it("legacy bodies, as KubeVirt's addvolume/removevolume take them", () => {
    assert.deepStrictEqual(legacyAddVolumeBody('pvc-1'), {
      name: 'pvc-1',
      disk: { name: '', disk: { bus: 'scsi' } },
      volumeSource: { persistentVolumeClaim: { claimName: 'pvc-1', hotpluggable: true } },
    });
    assert.deepStrictEqual(legacyRemoveVolumeBody('pvc-1'), { name: 'pvc-1' });
  });
});

describe('attachmentOf', () => {
  const table: Array<[string, HostVm | undefined, HostVmi | undefined, string]> = [
    ['listed and hotplugged', vm(['pvc-1']), vmi([{ name: 'pvc-1', hotplug: true }]), 'attached'],
    ['listed, VMI not there yet', vm(['pvc-1']), vmi([]), 'attaching'],
    [
      'listed, VMI shows it without hotplugVolume yet',
      vm(['pvc-1']),
      vmi([{ name: 'pvc-1' }]),
      'attaching',
    ],
    ['listed, no VMI (VM stopped)', vm(['pvc-1']), undefined, 'attaching'],
    [
      'removed from the spec, VMI still shows it',
      vm([]),
      vmi([{ name: 'pvc-1', hotplug: true }]),
      'detaching',
    ],
    ['neither', vm([]), vmi([]), 'detached'],
    ['no VM', undefined, undefined, 'detached'],
  ];
  for (const [name, machine, instance, expected] of table)
    it(name, () => assert.strictEqual(attachmentOf(machine, instance, 'pvc-1'), expected));
});
