import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  claimNamesOfVmi,
  isVmiRunning,
  pvcKeysOfVmi,
  vmiHotplugs,
  vmNameOfVmi,
} from '../../../src/model/vmi-claims.js';
import { vmi } from '../../support/webhook/admission-objects.js';

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
    assert.deepStrictEqual(claimNamesOfVmi(instance).sort(), ['vm1-disk-0-kq8zt', 'vm1-dv']);
    assert.deepStrictEqual(pvcKeysOfVmi(instance).sort(), [
      'team-a/vm1-disk-0-kq8zt',
      'team-a/vm1-dv',
    ]);
  });

  it('a claim still in status.volumeStatus after it left the spec (a hotplugged volume being unplugged) is still used', () => {
    const instance = vmi('vm1', {
      volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: 'root' } }, HOTPLUGGED],
    });
    instance.spec!.volumes = instance.spec!.volumes!.slice(0, 1);
    assert.deepStrictEqual(claimNamesOfVmi(instance).sort(), ['data-pvc', 'root']);
  });

  it('a VMI without volumes or status uses nothing', () => {
    assert.deepStrictEqual(pvcKeysOfVmi({ metadata: { name: 'bare', namespace: 'default' } }), []);
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
      assert.strictEqual(
        isVmiRunning({ metadata: { name: 'x' }, status: phase === undefined ? {} : { phase } }),
        running,
      ),
    );
  }
  it('no status at all', () => assert.isTrue(isVmiRunning({ metadata: { name: 'x' } })));
});

describe('vmiHotplugs', () => {
  it('a spec volume with persistentVolumeClaim.hotpluggable or dataVolume.hotpluggable true (what addvolume writes)', () => {
    assert.isTrue(vmiHotplugs(vmi('vm1', { volumes: [HOTPLUGGED] }), 'data-pvc'));
    assert.isTrue(
      vmiHotplugs(
        vmi('vm1', {
          volumes: [{ name: 'dv', dataVolume: { name: 'dv-pvc', hotpluggable: true } }],
        }),
        'dv-pvc',
      ),
    );
    assert.isFalse(vmiHotplugs(vmi('vm1', { volumes: [HOTPLUGGED] }), 'other'));
  });

  it('a volume that is not hotplugged', () => {
    const instance = vmi('vm1');
    assert.isFalse(vmiHotplugs(instance, 'vm1-disk-0-kq8zt'));
    assert.isUndefined(instance.status?.volumeStatus?.[0]?.hotplugVolume);
  });

  it("a volumeStatus entry with hotplugVolume, by claimName or by the spec volume's name", () => {
    const unplugging = vmi('vm1', { volumes: [HOTPLUGGED] });
    unplugging.spec!.volumes = [];
    assert.isTrue(vmiHotplugs(unplugging, 'data-pvc'), 'left the spec, still attached');
    const noClaimName = vmi('vm1', { volumes: [HOTPLUGGED] });
    noClaimName.spec!.volumes = [
      { name: 'data', persistentVolumeClaim: { claimName: 'data-pvc' } },
    ];
    delete noClaimName.status!.volumeStatus![0]!.persistentVolumeClaimInfo;
    assert.isTrue(
      vmiHotplugs(noClaimName, 'data-pvc'),
      "KubeVirt before v1.3 records no claimName: the spec volume's name ties it",
    );
  });
});

describe('vmNameOfVmi', () => {
  it('the controller ownerReference of kind VirtualMachine', () => {
    assert.strictEqual(vmNameOfVmi(vmi('vm1')), 'vm1');
    assert.isUndefined(vmNameOfVmi(vmi('vm1', { standalone: true })));
    assert.isUndefined(
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
    );
    assert.isUndefined(
      vmNameOfVmi({
        metadata: {
          name: 'x',
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true },
          ],
        },
      }),
    );
  });
});
