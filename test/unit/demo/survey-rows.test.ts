import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { V1LimitRange, V1ResourceQuota } from '@kubernetes/client-node';
import { surveyedNamespaces, surveyRows, type SurveyRow } from '../../../src/demo/survey-rows.js';
import { buildAdmissionCaches } from '../../../src/host-cache/build-admission-caches.js';
import { DEFAULT_ADMISSION_OPTIONS } from '../../../src/admission/admission-options.js';
import type { NamespacePolicies } from '../../../src/admission/api-server-checks.js';
import { checkResize } from '../../../src/check/check-resize.js';
import {
  harvesterSetting,
  kubeVirt,
  pvc,
  storageClass,
  vm,
  vmi,
} from '../../support/webhook/admission-objects.js';

const GI = 1024n ** 3n;
const options = { ...DEFAULT_ADMISSION_OPTIONS };
const nfs = (name: string, namespace: string) =>
  pvc(name, {
    namespace,
    provisioner: 'nfs.csi.k8s.io',
    className: 'nfs-csi',
    volumeMode: 'Filesystem',
    volumeName: `pv-${namespace}-${name}`,
  });
const stopped = (name: string, namespace: string, claims: string[]) =>
  vm(name, {
    namespace,
    status: 'Stopped',
    templates: [],
    volumes: claims.map((claimName, index) => ({
      name: `disk-${index}`,
      persistentVolumeClaim: { claimName },
    })),
  });
const caches = buildAdmissionCaches({
  pvcs: [nfs('qd', 'q'), nfs('rd', 'r')],
  storageClasses: [storageClass('nfs-csi', 'nfs.csi.k8s.io')],
  // qvm also names a claim that was never created; svm's namespace has no claim at all.
  vms: [
    stopped('qvm', 'q', ['qd', 'qgone']),
    stopped('rvm', 'r', ['rd']),
    stopped('rvm2', 'r', ['rd']),
    stopped('svm', 's', ['sgone']),
  ],
  vmis: [],
  kubeVirt: kubeVirt(),
  setting: harvesterSetting(''),
  longhornVolumes: [],
  longhornEngines: [],
  longhornSetting: undefined,
});

const quota: V1ResourceQuota = {
  metadata: { name: 'rq', namespace: 'q' },
  spec: { hard: { 'requests.storage': '15Gi' } },
  status: { hard: { 'requests.storage': '15Gi' }, used: { 'requests.storage': '10Gi' } },
};
const limitRange: V1LimitRange = {
  metadata: { name: 'lr', namespace: 'q' },
  spec: { limits: [{ type: 'PersistentVolumeClaim', max: { storage: '25Gi' } }] },
};
const policies = new Map<string, NamespacePolicies>([
  ['q', { limitRanges: [limitRange], quotas: [quota], unreadable: [] }],
  [
    'r',
    {
      limitRanges: [],
      quotas: [],
      unreadable: ['LimitRanges in r (HTTP 403)', 'ResourceQuotas in r (HTTP 403)'],
    },
  ],
]);

describe('surveyRows', () => {
  it('reads policies only for the namespaces of the claims that exist', () => {
    assert.deepStrictEqual(surveyedNamespaces(caches), ['q', 'r']);
  });

  it("judges each claim with its own namespace's policies, exactly as voe check does", () => {
    for (const [growBy, decision] of [
      [5n, 'allowed-offline'],
      [10n, 'api-quota-exceeded'],
      [20n, 'api-limit-range'],
    ] as const) {
      const rows = surveyRows(caches, options, growBy * GI, policies).filter(
        (row): row is SurveyRow => row.found,
      );
      const q = rows.find((row) => row.pvc === 'q/qd');
      const r = rows.find((row) => row.pvc === 'r/rd');
      assert.ok(q && r);
      const to = `${10n + growBy}Gi`;
      assert.deepStrictEqual(q, {
        ...checkResize(nfs('qd', 'q'), to, caches, options, policies.get('q')),
        found: true,
        vms: ['qvm (Stopped)'],
      });
      assert.strictEqual(q.decision, decision, `--grow-by ${growBy}Gi`);
      // r has no policy that refuses; what it could not read is said, not judged.
      assert.deepStrictEqual(r, {
        ...checkResize(nfs('rd', 'r'), to, caches, options, policies.get('r')),
        found: true,
        vms: ['rvm (Stopped)', 'rvm2 (Stopped)'],
      });
      assert.isTrue(r.allowed);
      assert.deepStrictEqual(
        r.findings.filter((f) => f.decision === 'api-policy-unreadable').map((f) => f.message),
        [
          'Not judged: LimitRanges in r (HTTP 403) could not be read; the API server applies them too.',
          'Not judged: ResourceQuotas in r (HTTP 403) could not be read; the API server applies them too.',
        ],
      );
    }
  });

  it('lists a claim a VM names that does not exist as not found, in order with the others', () => {
    const rows = surveyRows(caches, options, GI, policies);
    assert.deepStrictEqual(
      rows.map((row) => [row.pvc, row.found]),
      [
        ['q/qd', true],
        ['q/qgone', false],
        ['r/rd', true],
        ['s/sgone', false],
      ],
    );
    assert.deepStrictEqual(rows[1], {
      pvc: 'q/qgone',
      found: false,
      vms: ['qvm (Stopped)'],
      message:
        'PVC q/qgone was not found: the VM names it, but it does not exist (yet), so there is nothing to grow.',
    });
  });

  it("lists a claim only a running VMI has (hotplugged without --persist), judged as a running VM's", () => {
    const hotplug = (name: string) => ({
      name,
      persistentVolumeClaim: { claimName: name, hotpluggable: true },
    });
    const withVmis = buildAdmissionCaches({
      pvcs: [nfs('qd', 'q'), nfs('qhot', 'q')],
      storageClasses: [storageClass('nfs-csi', 'nfs.csi.k8s.io')],
      vms: [
        vm('qvm', {
          namespace: 'q',
          templates: [],
          volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: 'qd' } }],
        }),
      ],
      // qvm's VMI has qd (its VM names it: listed once, for the VM) and qhot; a standalone VMI and a finished one have claims too.
      vmis: [
        vmi('qvm', {
          namespace: 'q',
          volumes: [
            { name: 'disk-0', persistentVolumeClaim: { claimName: 'qd' } },
            hotplug('qhot'),
          ],
        }),
        vmi('lone', { namespace: 'q', standalone: true, volumes: [hotplug('qhot')] }),
        vmi('done', { namespace: 'q', phase: 'Succeeded', volumes: [hotplug('qgone')] }),
      ],
      kubeVirt: kubeVirt(),
      setting: harvesterSetting('{"nfs.csi.k8s.io":true}'),
      longhornVolumes: [],
      longhornEngines: [],
      longhornSetting: undefined,
    });
    const rows = surveyRows(withVmis, options, GI, new Map());
    assert.deepStrictEqual(
      rows.map((row) => [row.pvc, row.vms]),
      [
        ['q/qd', ['qvm (Running)']],
        ['q/qhot', ['qvm (Running; on its VMI only)', 'VMI lone (Running, no VM)']],
      ],
    );
    const hot = rows[1] as SurveyRow;
    assert.strictEqual(hot.decision, 'hotplug-filesystem');
    assert.match(
      hot.message,
      /found on the running VirtualMachineInstance only, not in the VM's spec: VM q\/qvm, VMI q\/lone \(no VM\);/,
    );
  });
});
