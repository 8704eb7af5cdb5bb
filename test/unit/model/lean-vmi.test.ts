import { describe, it } from 'mocha';
import { assert } from 'chai';
import { resolveAdmissionOptions } from '../../../src/admission/admission-options.js';
import { decideResize } from '../../../src/admission/decide-resize.js';
import {
  claimNamesOfVmi,
  isVmiRunning,
  vmiHotplugs,
  vmNameOfVmi,
} from '../../../src/model/vmi-claims.js';
import { leanVmi } from '../../../src/model/lean-vmi.js';
import { parseExpandValidation } from '../../../src/settings/index.js';
import {
  harvesterSetting,
  kubeVirt,
  pvc,
  resized,
  storageClass,
  vmi,
} from '../../support/webhook/admission-objects.js';

const VOLUMES = [
  { name: 'disk-0', persistentVolumeClaim: { claimName: 'vm1-disk-0-kq8zt' } },
  { name: 'data', persistentVolumeClaim: { claimName: 'data-pvc', hotpluggable: true } },
  { name: 'dv', dataVolume: { name: 'dv-pvc' } },
  {
    name: 'cloudinitdisk',
    cloudInitNoCloud: { userData: '#cloud-config\npackage_update: true\n' },
  },
];

describe('leanVmi', () => {
  it('keeps what the decisions read: identity, owner VM, PVC and DataVolume volumes, phase, and the claims and hotplugs of volumeStatus', () => {
    const full = vmi('vm1', { volumes: VOLUMES });
    assert.deepStrictEqual(leanVmi(full), {
      metadata: {
        name: 'vm1',
        namespace: 'default',
        resourceVersion: '184220',
        ownerReferences: [
          {
            apiVersion: 'kubevirt.io/v1',
            kind: 'VirtualMachine',
            name: 'vm1',
            uid: '0c7e1a52-3f4b-4d8e-9a61-7e2f3b4c5d6e',
            controller: true,
          },
        ],
      },
      spec: {
        volumes: [
          { name: 'disk-0', persistentVolumeClaim: { claimName: 'vm1-disk-0-kq8zt' } },
          { name: 'data', persistentVolumeClaim: { claimName: 'data-pvc', hotpluggable: true } },
          { name: 'dv', dataVolume: { name: 'dv-pvc' } },
        ],
      },
      // Only what the spec does not say already: the hotplugged one.
      status: {
        phase: 'Running',
        volumeStatus: [
          { name: 'data', persistentVolumeClaimInfo: { claimName: 'data-pvc' }, hotplugVolume: {} },
        ],
      },
    });
    // A claim in volumeStatus that left the spec (being unplugged) is kept too.
    const unplugging = vmi('vm1', { volumes: VOLUMES });
    unplugging.spec!.volumes = unplugging.spec!.volumes!.filter((volume) => volume.name !== 'dv');
    assert.deepStrictEqual(
      leanVmi(unplugging).status?.volumeStatus?.map((status) => status.name),
      ['data', 'dv'],
    );
  });

  it('reads the same as the full object for every question the decisions ask', () => {
    const unplugging = vmi('vm4', { volumes: VOLUMES });
    unplugging.spec!.volumes = [];
    for (const instance of [
      vmi('vm1', { volumes: VOLUMES }),
      vmi('vm2', { standalone: true, phase: 'Succeeded' }),
      vmi('vm3', { phase: 'Pending', volumes: [] }),
      unplugging,
    ]) {
      const lean = leanVmi(instance);
      assert.deepStrictEqual(claimNamesOfVmi(lean), claimNamesOfVmi(instance));
      assert.strictEqual(isVmiRunning(lean), isVmiRunning(instance));
      assert.strictEqual(vmNameOfVmi(lean), vmNameOfVmi(instance));
      for (const name of claimNamesOfVmi(instance))
        assert.strictEqual(vmiHotplugs(lean, name), vmiHotplugs(instance, name), name);
    }
    const claim = pvc('data-pvc', {
      provisioner: 'topolvm.io',
      className: 'topolvm',
      volumeMode: 'Filesystem',
    });
    const snapshot = {
      oldPvc: claim,
      pvc: resized(claim, '20Gi'),
      storageClass: storageClass('topolvm', 'topolvm.io'),
      vms: [],
      kubeVirt: kubeVirt(),
      expandSetting: {
        state: 'parsed' as const,
        validation: parseExpandValidation(harvesterSetting('{"topolvm.io":true}')),
      },
    };
    const full = vmi('vm1', { volumes: VOLUMES });
    const options = resolveAdmissionOptions();
    assert.strictEqual(
      decideResize({ ...snapshot, vmis: [full] }, options).decision,
      'hotplug-filesystem',
    );
    assert.deepStrictEqual(
      decideResize({ ...snapshot, vmis: [leanVmi(full)] }, options),
      decideResize({ ...snapshot, vmis: [full] }, options),
    );
  });

  it("is a fraction of the object's size and leaves the object as it was", () => {
    const full = vmi('vm1', { volumes: VOLUMES });
    const copy = structuredClone(full);
    const lean = leanVmi(full);
    assert.deepStrictEqual(full, copy);
    assert.ok(
      JSON.stringify(lean).length * 4 < JSON.stringify(full).length,
      `${JSON.stringify(lean).length} of ${JSON.stringify(full).length} bytes`,
    );
  });

  it('drops a non-controller owner, and copes with a VMI without spec or status', () => {
    const instance = vmi('vm1', { standalone: true });
    instance.metadata!.ownerReferences = [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' }];
    assert.isUndefined(leanVmi(instance).metadata?.ownerReferences);
    assert.deepStrictEqual(leanVmi({ metadata: { name: 'x', namespace: 'n' } }).spec, {
      volumes: [],
    });
  });
});
