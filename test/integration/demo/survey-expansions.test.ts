/**
 * The read-only survey of `voe demo --kubeconfig` against a real kube-apiserver: a namespace's
 * LimitRange and ResourceQuota refuse a VM disk's growth in the survey exactly as `voe check`
 * and the API server itself refuse it; a user who may not list them gets them named as not
 * judged, as `voe check` names them.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { StagedCluster } from '../../../src/demo/staged-cluster.js';
import type { SurveyRow } from '../../../src/demo/survey-rows.js';
import type { CheckResult } from '../../../src/check/check-resize.js';
import {
  harvesterSetting,
  kubeVirt,
  pvc,
  storageClass,
  vm,
} from '../../support/webhook/admission-objects.js';
import { runVoe } from '../../support/run-voe.js';
import { eventually } from '../../support/eventually.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

// The reviewer's setup: namespace q, a bound 10Gi NFS claim qd used by the stopped VM qvm, a
// quota of 15Gi with 10Gi used, a LimitRange of at most 25Gi per claim. Namespace r has the same
// kind of disk and no policy: q's policies must not reach it.
const nfs = (name: string, namespace: string) =>
  pvc(name, {
    namespace,
    provisioner: 'nfs.csi.k8s.io',
    className: 'nfs-csi',
    volumeMode: 'Filesystem',
    volumeName: `pv-${namespace}-${name}`,
  });
const CLAIMS = [nfs('qd', 'q'), nfs('rd', 'r')];
await cluster.apply({
  storageClasses: [
    storageClass('nfs-csi', 'nfs.csi.k8s.io', {
      server: 'nfs-server.default.svc.cluster.local',
      share: '/',
    }),
  ],
  pvcs: CLAIMS,
  vms: [
    vm('qvm', {
      namespace: 'q',
      status: 'Stopped',
      volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: 'qd' } }],
      templates: [],
    }),
    vm('rvm', {
      namespace: 'r',
      status: 'Stopped',
      volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: 'rd' } }],
      templates: [],
    }),
  ],
  kubeVirts: [kubeVirt()],
  settings: [harvesterSetting('')],
});
await cluster.bindClaims(CLAIMS);
await cluster.core.createNamespacedResourceQuota({
  namespace: 'q',
  body: { metadata: { name: 'rq' }, spec: { hard: { 'requests.storage': '15Gi' } } },
});
// kube-controller-manager's quota controller does not run here: write the status it would.
await cluster.core.patchNamespacedResourceQuotaStatus(
  {
    namespace: 'q',
    name: 'rq',
    body: {
      status: { hard: { 'requests.storage': '15Gi' }, used: { 'requests.storage': '10Gi' } },
    },
  },
  MERGE_PATCH,
);
await cluster.core.createNamespacedLimitRange({
  namespace: 'q',
  body: {
    metadata: { name: 'lr' },
    spec: { limits: [{ type: 'PersistentVolumeClaim', max: { storage: '25Gi' } }] },
  },
});

async function survey(
  growBy: string,
  kubeconfig = cp.kubeconfigPath,
): Promise<Map<string, SurveyRow>> {
  const result = await runVoe(['demo', '--kubeconfig', kubeconfig, '--grow-by', growBy, '--json']);
  assert.strictEqual(result.code, 0, result.stderr);
  return new Map((JSON.parse(result.stdout) as SurveyRow[]).map((row) => [row.pvc, row]));
}

async function check(
  target: string,
  size: string,
  kubeconfig = cp.kubeconfigPath,
): Promise<CheckResult> {
  const result = await runVoe([
    'check',
    target,
    '--size',
    size,
    '--json',
    '--kubeconfig',
    kubeconfig,
  ]);
  assert.notStrictEqual(result.code, 2, result.stderr);
  return JSON.parse(result.stdout) as CheckResult;
}

/** What the real API server answers the update (dry run: nothing changes). */
async function realAnswer(
  namespace: string,
  name: string,
  storage: string,
): Promise<{ code: number; message: string }> {
  try {
    await cluster.core.patchNamespacedPersistentVolumeClaim(
      { namespace, name, dryRun: 'All', body: { spec: { resources: { requests: { storage } } } } },
      MERGE_PATCH,
    );
    return { code: 200, message: '' };
  } catch (error) {
    const e = error as { code?: number; body?: string };
    return {
      code: e.code ?? 0,
      message: String((JSON.parse(e.body ?? '{}') as { message?: string }).message),
    };
  }
}

/** The row without what only the survey adds: `voe check`'s answer. */
function answerOf(row: SurveyRow | undefined): unknown {
  assert.ok(row);
  const { vms: _vms, found, ...answer } = row;
  assert.isTrue(found);
  return answer;
}

describe('the survey of voe demo --kubeconfig', () => {
  it('a ResourceQuota and a LimitRange refuse in the survey exactly as voe check and the API server refuse', async () => {
    const cases: Array<{
      growBy: string;
      to: string;
      code: number;
      decision: string;
      real: RegExp;
    }> = [
      { growBy: '5Gi', to: '15Gi', code: 200, decision: 'allowed-offline', real: /^$/ },
      {
        growBy: '10Gi',
        to: '20Gi',
        code: 403,
        decision: 'api-quota-exceeded',
        real: /exceeded quota: rq/,
      },
      {
        growBy: '20Gi',
        to: '30Gi',
        code: 403,
        decision: 'api-limit-range',
        real: /maximum storage usage per PersistentVolumeClaim is 25Gi/,
      },
    ];
    for (const c of cases) {
      const rows = await survey(c.growBy);
      const row = rows.get('q/qd');
      assert.ok(row);
      assert.strictEqual(row.to, c.to);
      assert.deepStrictEqual(row.vms, ['qvm (Stopped)']);
      assert.deepStrictEqual(
        answerOf(row),
        await check('q/qd', c.to),
        `--grow-by ${c.growBy}: the survey and voe check differ`,
      );
      assert.strictEqual(
        row.allowed ? 200 : row.code,
        c.code,
        `--grow-by ${c.growBy}: ${JSON.stringify(row)}`,
      );
      assert.strictEqual(row.decision, c.decision);
      const real = await realAnswer('q', 'qd', c.to);
      assert.strictEqual(
        real.code,
        c.code,
        `q/qd -> ${c.to}: the real API server answered ${real.code} ${real.message}`,
      );
      assert.match(real.message, c.real);
      // q's policies are q's only.
      const other = rows.get('r/rd');
      assert.ok(other);
      assert.isTrue(other.allowed);
      assert.strictEqual(other.decision, 'allowed-offline');
      assert.deepStrictEqual(answerOf(other), await check('r/rd', other.to));
    }

    const human = await runVoe(['demo', '--kubeconfig', cp.kubeconfigPath, '--grow-by', '10Gi']);
    assert.strictEqual(human.code, 0, human.stderr);
    assert.match(
      human.stdout,
      /\nREFUSED {2}q\/qd 10Gi -> 20Gi {2}used by qvm \(Stopped\)\n {9}The API server refuses it after the webhooks: exceeded quota rq: requests\.storage is 10Gi used of 15Gi/,
    );
    assert.match(human.stdout, /\nALLOWED {2}r\/rd 10Gi -> 20Gi {2}used by rvm \(Stopped\)\n/);
    assert.strictEqual(
      (await cluster.core.readNamespacedPersistentVolumeClaim({ namespace: 'q', name: 'qd' })).spec
        ?.resources?.requests?.['storage'],
      '10Gi',
      'nothing changed',
    );
  });

  it('a user who may list LimitRanges and ResourceQuotas in q only: q is judged, r named as not judged, each as voe check does for that user', async () => {
    const { path } = await cp.mintKubeConfig('surveyor');
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'surveyor' },
        rules: [
          { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list'] },
          { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['get', 'list'] },
          {
            apiGroups: ['kubevirt.io'],
            resources: ['virtualmachines', 'virtualmachineinstances', 'kubevirts'],
            verbs: ['get', 'list'],
          },
          { apiGroups: ['harvesterhci.io'], resources: ['settings'], verbs: ['get'] },
          {
            apiGroups: ['longhorn.io'],
            resources: ['volumes', 'engines', 'settings'],
            verbs: ['get', 'list'],
          },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'surveyor' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'surveyor' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'surveyor' }],
      },
    });
    await rbac.createNamespacedRole({
      namespace: 'q',
      body: {
        metadata: { name: 'policies-reader' },
        rules: [{ apiGroups: [''], resources: ['limitranges', 'resourcequotas'], verbs: ['list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'q',
      body: {
        metadata: { name: 'policies-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'policies-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'surveyor' }],
      },
    });
    // RBAC's informers pick up the new bindings: wait until the user may list q's quotas.
    await eventually(
      async () => {
        const rows = await runVoe(['demo', '--kubeconfig', path, '--grow-by', '10Gi', '--json']);
        return (
          rows.code === 0 &&
          (JSON.parse(rows.stdout) as SurveyRow[]).some(
            (row) => row.decision === 'api-quota-exceeded',
          )
        );
      },
      120_000,
      "the surveyor's reading of q's quotas",
      { intervalMs: 200 },
    );

    const rows = await survey('10Gi', path);
    const q = rows.get('q/qd');
    const r = rows.get('r/rd');
    assert.ok(q && r);
    assert.deepStrictEqual(answerOf(q), await check('q/qd', '20Gi', path));
    assert.strictEqual(q.decision, 'api-quota-exceeded');
    assert.deepStrictEqual(answerOf(r), await check('r/rd', '20Gi', path));
    assert.strictEqual(r.decision, 'allowed-offline');
    assert.deepStrictEqual(
      r.findings.filter((f) => f.decision === 'api-policy-unreadable').map((f) => f.message),
      [
        'Not judged: LimitRanges in r (HTTP 403) could not be read; the API server applies them too.',
        'Not judged: ResourceQuotas in r (HTTP 403) could not be read; the API server applies them too.',
      ],
    );

    const human = await runVoe(['demo', '--kubeconfig', path, '--grow-by', '10Gi']);
    assert.strictEqual(human.code, 0, human.stderr);
    assert.match(
      human.stdout,
      /\nALLOWED {2}r\/rd 10Gi -> 20Gi {2}used by rvm \(Stopped\)\n {9}.*\n {9}Not judged: LimitRanges in r \(HTTP 403\) could not be read; the API server applies them too\.\n {9}Not judged: ResourceQuotas in r \(HTTP 403\)/,
    );
  });
});
