import { describe, it } from 'mocha';
import { assert } from 'chai';
import { resolveAdmissionOptions } from '../../../src/admission/admission-options.js';
import { decideResize } from '../../../src/admission/decide-resize.js';
import { vmUsers } from '../../../src/admission/vm-users.js';
import {
  isVmRunning,
  leanVm,
  pvcKeysOfVm,
  vmHotplugs,
  type VirtualMachine,
} from '../../../src/model/index.js';
import { buildAdmissionCaches } from '../../../src/host-cache/build-admission-caches.js';
import { parseExpandValidation } from '../../../src/settings/index.js';
import {
  harvesterSetting,
  kubeVirt,
  pvc,
  resized,
  storageClass,
  templateEntry,
  vm,
  VM_UID,
} from '../../support/webhook/admission-objects.js';

const VOLUMES = [
  { name: 'disk-0', persistentVolumeClaim: { claimName: 'data-pvc' } },
  { name: 'hot', persistentVolumeClaim: { claimName: 'hot-pvc', hotpluggable: true } },
  { name: 'dv', dataVolume: { name: 'dv-pvc', hotpluggable: true } },
  { name: 'cloudinitdisk', cloudInitNoCloud: { userData: '#cloud-config\n' } },
];

/** VMs as the webhook's VM cache receives them, each with a different use of its PVCs. */
const CASES: Array<[string, VirtualMachine]> = [
  ['running, volumes of every kind', vm('vm1', { volumes: VOLUMES })],
  ['stopped', vm('vm2', { status: 'Stopped', volumes: VOLUMES })],
  ['without status', vm('vm3', { status: null, volumes: VOLUMES })],
  [
    'naming the PVC in its volumeClaimTemplates only',
    vm('vm4', { volumes: [], templates: [templateEntry('data-pvc', '10Gi')] }),
  ],
  ['without volumeClaimTemplates', vm('vm5', { volumes: VOLUMES, templates: [] })],
];

describe('the lean VM the webhook caches (leanVm)', () => {
  it('keeps what the decisions read: identity, the volumeClaimTemplates annotation, PVC and DataVolume volumes, printableStatus', () => {
    const full = vm('vm1', { volumes: VOLUMES, templates: [templateEntry('data-pvc', '10Gi')] });
    assert.deepStrictEqual(leanVm(full), {
      metadata: {
        name: 'vm1',
        namespace: 'default',
        uid: VM_UID,
        resourceVersion: '183102',
        annotations: {
          'harvesterhci.io/volumeClaimTemplates':
            full.metadata!.annotations!['harvesterhci.io/volumeClaimTemplates']!,
        },
      },
      spec: {
        template: {
          spec: {
            volumes: [
              { name: 'disk-0', persistentVolumeClaim: { claimName: 'data-pvc' } },
              { name: 'hot', persistentVolumeClaim: { claimName: 'hot-pvc', hotpluggable: true } },
              { name: 'dv', dataVolume: { name: 'dv-pvc', hotpluggable: true } },
            ],
          },
        },
      },
      status: { printableStatus: 'Running' },
    });
  });

  for (const [title, full] of CASES) {
    it(`answers as the full VM: ${title}`, () => {
      const lean = leanVm(full);
      assert.deepStrictEqual(pvcKeysOfVm(lean), pvcKeysOfVm(full));
      assert.strictEqual(isVmRunning(lean), isVmRunning(full));
      for (const name of ['data-pvc', 'hot-pvc', 'dv-pvc', 'other'])
        assert.strictEqual(vmHotplugs(lean, name), vmHotplugs(full, name), name);
      for (const name of ['data-pvc', 'hot-pvc', 'dv-pvc']) {
        const claim = pvc(name, {
          provisioner: 'topolvm.io',
          className: 'topolvm',
          volumeMode: 'Filesystem',
        });
        const snapshot = {
          oldPvc: claim,
          pvc: resized(claim, '20Gi'),
          storageClass: storageClass('topolvm', 'topolvm.io'),
          vmis: [],
          kubeVirt: kubeVirt(),
          expandSetting: {
            state: 'parsed' as const,
            validation: parseExpandValidation(harvesterSetting('{"topolvm.io":true}')),
          },
        };
        assert.deepStrictEqual(
          vmUsers({ ...snapshot, vms: [lean] }, name),
          vmUsers({ ...snapshot, vms: [full] }, name),
        );
        const options = resolveAdmissionOptions();
        assert.deepStrictEqual(
          decideResize({ ...snapshot, vms: [lean] }, options),
          decideResize({ ...snapshot, vms: [full] }, options),
          name,
        );
      }
    });
  }

  it('is what buildAdmissionCaches keeps, as voe serve does, leaving the objects as they were', () => {
    const vms = CASES.map(([, full]) => full);
    const copies = structuredClone(vms);
    const caches = buildAdmissionCaches({
      pvcs: [],
      storageClasses: [],
      vms,
      vmis: [],
      kubeVirt: undefined,
      setting: undefined,
      longhornVolumes: [],
      longhornEngines: [],
      longhornSetting: undefined,
    });
    assert.deepStrictEqual(caches.vms.list(), vms.map(leanVm));
    assert.deepStrictEqual(vms, copies);
    assert.deepStrictEqual(
      caches.vms.byIndex('vms-by-pvc', 'default/data-pvc').map((v) => v.metadata?.name),
      ['vm1', 'vm2', 'vm3', 'vm4', 'vm5'],
    );
  });
});
