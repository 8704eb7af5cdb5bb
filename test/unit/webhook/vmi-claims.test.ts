import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  claimNamesOfVmi,
  isVmiRunning,
  pvcKeysOfVmi,
  vmiHotplugs,
  vmNameOfVmi,
} from '../../../src/webhook/index.js';
import { vmi } from '../../support/admission-objects.js';

const HOTPLUGGED = {
  name: 'data',
  persistentVolumeClaim: { claimName: 'data-pvc', hotpluggable: true },
};

describe('claimNamesOfVmi / pvcKeysOfVmi', () => {
  it('spec persistentVolumeClaim and dataVolume volumes, in the VMI namespace; other sources are not claims', () => {
    const instance = vmi('vm1', {
      namespace: 'team-a',
      volumes: [
        { name: 'disk-0', persistentVolumeClaim: { claimName: 'vm1-disk-0-kq8zt' } },
        { name: 'disk-1', dataVolume: { name: 'vm1-dv', hotpluggable: true } },
        { name: 'cloudinitdisk', cloudInitNoCloud: { userData: '#cloud-config' } },
      ],
    });
    assert.deepEqual(claimNamesOfVmi(instance).sort(), ['vm1-disk-0-kq8zt', 'vm1-dv']);
    assert.deepEqual(pvcKeysOfVmi(instance).sort(), ['team-a/vm1-disk-0-kq8zt', 'team-a/vm1-dv']);
  });

  it('a claim still in status.volumeStatus after it left the spec (a hotplugged volume being unplugged) is still used', () => {
    const instance = vmi('vm1', {
      volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: 'root' } }, HOTPLUGGED],
    });
    instance.spec!.volumes = instance.spec!.volumes!.slice(0, 1);
    assert.deepEqual(claimNamesOfVmi(instance).sort(), ['data-pvc', 'root']);
  });

  it('a VMI without volumes or status uses nothing', () => {
    assert.deepEqual(pvcKeysOfVmi({ metadata: { name: 'bare', namespace: 'default' } }), []);
  });
});

describe('isVmiRunning (not Succeeded or Failed)', () => {
  const table: Array<[string, string | undefined, boolean]> = [
    ['Running', 'Running', true],
    ['Pending', 'Pending', true],
    ['Scheduling', 'Scheduling', true],
    ['Scheduled', 'Scheduled', true],
    ['Unknown (its node does not answer)', 'Unknown', true],
    ['no phase yet', undefined, true],
    ['empty phase', '', true],
    ['Succeeded', 'Succeeded', false],
    ['Failed', 'Failed', false],
  ];
  for (const [name, phase, running] of table) {
    it(name, () =>
      assert.equal(
        isVmiRunning({ metadata: { name: 'x' }, status: phase === undefined ? {} : { phase } }),
        running,
      ),
    );
  }
  it('no status at all', () => assert.equal(isVmiRunning({ metadata: { name: 'x' } }), true));
});

describe('vmiHotplugs', () => {
  it('a spec volume with persistentVolumeClaim.hotpluggable or dataVolume.hotpluggable true (what addvolume writes)', () => {
    assert.equal(vmiHotplugs(vmi('vm1', { volumes: [HOTPLUGGED] }), 'data-pvc'), true);
    assert.equal(
      vmiHotplugs(
        vmi('vm1', {
          volumes: [{ name: 'dv', dataVolume: { name: 'dv-pvc', hotpluggable: true } }],
        }),
        'dv-pvc',
      ),
      true,
    );
    assert.equal(vmiHotplugs(vmi('vm1', { volumes: [HOTPLUGGED] }), 'other'), false);
  });

  it('a volume that is not hotplugged', () => {
    const instance = vmi('vm1');
    assert.equal(vmiHotplugs(instance, 'vm1-disk-0-kq8zt'), false);
    assert.equal(instance.status?.volumeStatus?.[0]?.hotplugVolume, undefined);
  });

  it("a volumeStatus entry with hotplugVolume, by claimName or by the spec volume's name", () => {
    const unplugging = vmi('vm1', { volumes: [HOTPLUGGED] });
    unplugging.spec!.volumes = [];
    assert.equal(vmiHotplugs(unplugging, 'data-pvc'), true, 'left the spec, still attached');
    const noClaimName = vmi('vm1', { volumes: [HOTPLUGGED] });
    noClaimName.spec!.volumes = [
      { name: 'data', persistentVolumeClaim: { claimName: 'data-pvc' } },
    ];
    delete noClaimName.status!.volumeStatus![0]!.persistentVolumeClaimInfo;
    assert.equal(
      vmiHotplugs(noClaimName, 'data-pvc'),
      true,
      "KubeVirt before v1.3 records no claimName: the spec volume's name ties it",
    );
  });
});

describe('vmNameOfVmi', () => {
  it('the controller ownerReference of kind VirtualMachine', () => {
    assert.equal(vmNameOfVmi(vmi('vm1')), 'vm1');
    assert.equal(vmNameOfVmi(vmi('vm1', { standalone: true })), undefined);
    assert.equal(
      vmNameOfVmi({
        metadata: {
          name: 'x',
          ownerReferences: [
            {
              apiVersion: 'kubevirt.io/v1',
              kind: 'VirtualMachine',
              name: 'vm',
              uid: 'u',
              controller: false,
            },
          ],
        },
      }),
      undefined,
    );
    assert.equal(
      vmNameOfVmi({
        metadata: {
          name: 'x',
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true },
          ],
        },
      }),
      undefined,
    );
  });
});
