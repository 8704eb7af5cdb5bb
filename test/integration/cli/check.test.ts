/**
 * `voe check` against a real kube-apiserver holding real-shaped Harvester, KubeVirt and
 * Longhorn objects: the same decision as the webhook, every finding, nothing changed.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { useControlPlane } from '../../support/use-control-plane.js';
import { KINDS, StagedCluster } from '../../../src/demo/staged-cluster.js';
import {
  harvesterSetting,
  kubeVirt,
  longhornEngine,
  longhornImageClass,
  longhornVersion,
  longhornVolume,
  pvc,
  storageClass,
  vm,
  vmi,
} from '../../support/webhook/admission-objects.js';
import { runVoe } from '../../support/run-voe.js';
import { compareQuantities } from '../../../src/kube/index.js';

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const ROOT = 'vm1-disk-0-kq8zt';
const NFS_DISK = 'vm2-disk-0-nfs01';
const V2_DISK = 'vm3-disk-0-v2abc';
const V2_PV = 'pvc-9a8b7c6d-0000-4000-8000-000000000003';
const NFS_PV = 'pvc-9a8b7c6d-0000-4000-8000-000000000002';
const PENDING_DISK = 'vm4-disk-0-pending';
const FIXED_DISK = 'vm4-disk-1-fixed';
const FIXED_PV = 'pvc-9a8b7c6d-0000-4000-8000-000000000004';

const CLAIMS = [
  pvc(ROOT),
  pvc(NFS_DISK, {
    provisioner: 'nfs.csi.k8s.io',
    className: 'nfs-csi',
    volumeMode: 'Filesystem',
    volumeName: NFS_PV,
  }),
  pvc(V2_DISK, { className: 'longhorn-v2', volumeName: V2_PV }),
  pvc(PENDING_DISK, { volumeName: 'pvc-never-bound' }),
  pvc(FIXED_DISK, { className: 'fixed-size', volumeName: FIXED_PV }),
];

await cluster.apply({
  storageClasses: [
    longhornImageClass(),
    storageClass('nfs-csi', 'nfs.csi.k8s.io', {
      server: 'nfs-server.default.svc.cluster.local',
      share: '/',
    }),
    storageClass('longhorn-v2', 'driver.longhorn.io', { dataEngine: 'v2', numberOfReplicas: '3' }),
    { ...storageClass('fixed-size', 'driver.longhorn.io'), allowVolumeExpansion: false },
  ],
  pvcs: CLAIMS,
  vms: [
    vm('vm1'),
    vm('vm2', {
      volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: NFS_DISK } }],
      templates: [],
    }),
    vm('vm3', {
      volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: V2_DISK } }],
      templates: [],
    }),
  ],
  kubeVirts: [kubeVirt({ gates: ['LiveMigration', 'HotplugVolumes'] })],
  settings: [harvesterSetting('')],
  longhornVolumes: [longhornVolume(), longhornVolume({ name: V2_PV, dataEngine: 'v2' })],
  longhornEngines: [longhornEngine(), longhornEngine({ volume: V2_PV, dataEngine: 'v2' })],
  longhornSettings: [longhornVersion('v1.9.1')],
});
// The PV binder's part (kube-controller-manager does not run here): every claim but PENDING_DISK is Bound.
await cluster.bindClaims(CLAIMS.filter((claim) => claim.metadata?.name !== PENDING_DISK));

const voe = (args: string[]) => runVoe(['check', ...args, '--kubeconfig', cp.kubeconfigPath]);

async function requestOf(name: string): Promise<string | undefined> {
  const claim = await cluster.core.readNamespacedPersistentVolumeClaim({
    namespace: 'default',
    name,
  });
  return claim.spec?.resources?.requests?.['storage'];
}

describe('voe check against a real API server', () => {
  it('refused while ExpandDisks is missing: exit 1, every reason printed, nothing changed', async () => {
    const result = await voe([`default/${ROOT}`, '--size', '20Gi']);
    assert.strictEqual(result.code, 1, result.stderr);
    assert.match(result.stdout, /^PVC default\/vm1-disk-0-kq8zt: 10Gi -> 20Gi$/m);
    assert.match(result.stdout, /^Verdict: refused \(422 Invalid, gate-missing\)$/m);
    assert.match(
      result.stdout,
      /\[refuse\] expand-disks +PVC_EXPAND: kubevirt ExpandDisks not included in featureGate\./,
    );
    assert.match(result.stdout, /\[pass\] +longhorn +Longhorn data engine v1 \(from Volume CR\)/);
    assert.match(result.stdout, /Nothing was changed\./);
    assert.strictEqual(await requestOf(ROOT), '10Gi');
  });

  it('--json carries the same decision and all findings', async () => {
    const result = await voe([`default/${NFS_DISK}`, '--size', '15Gi', '--json']);
    assert.strictEqual(result.code, 1, result.stderr);
    const decision = JSON.parse(result.stdout) as {
      allowed: boolean;
      decision: string;
      findings: Array<{ decision: string; outcome: string }>;
      from: string;
      to: string;
    };
    assert.isFalse(decision.allowed);
    assert.strictEqual(decision.decision, 'gate-missing');
    assert.strictEqual(decision.from, '10Gi');
    assert.strictEqual(decision.to, '15Gi');
    assert.deepStrictEqual(
      decision.findings.filter((f) => f.outcome === 'refuse').map((f) => f.decision),
      ['gate-missing', 'provisioner-not-validated'],
    );
  });

  it('allowed once the gate is listed (exit 0); NFS follows the Setting; Longhorn v2 follows the policy', async () => {
    const gates = ['LiveMigration', 'HotplugVolumes', 'ExpandDisks'];
    await cluster.patchCustom(
      KINDS.kubeVirts,
      'kubevirt',
      { spec: { configuration: { developerConfiguration: { featureGates: gates } } } },
      'harvester-system',
    );

    const root = await voe([`default/${ROOT}`, '--size', '20Gi']);
    assert.strictEqual(root.code, 0, root.stdout + root.stderr);
    assert.match(root.stdout, /^Verdict: allowed \(allowed\)$/m);

    const nfsBefore = await voe([`default/${NFS_DISK}`, '--size', '20Gi']);
    assert.strictEqual(nfsBefore.code, 1);
    assert.match(
      nfsBefore.stdout,
      /PVC_EXPAND: pvc default\/vm2-disk-0-nfs01 is not online expandable with its provider\./,
    );
    await cluster.patchCustom(KINDS.settings, 'csi-online-expand-validation', {
      value: '{"nfs.csi.k8s.io":true}',
    });
    assert.strictEqual((await voe([`default/${NFS_DISK}`, '--size', '20Gi'])).code, 0);

    const v2 = await voe([`default/${V2_DISK}`, '--size', '20Gi']);
    assert.strictEqual(v2.code, 1);
    assert.match(v2.stdout, /longhorn-v2-version/);
    assert.strictEqual(
      (await voe([`default/${V2_DISK}`, '--size', '20Gi', '--longhorn-v2-expansion', 'allow']))
        .code,
      0,
    );
    await cluster.patchCustom(
      KINDS.longhornSettings,
      'current-longhorn-version',
      { value: 'v1.10.1' },
      'longhorn-system',
    );
    assert.strictEqual((await voe([`default/${V2_DISK}`, '--size', '20Gi'])).code, 0);

    // --longhorn off: Longhorn v1.10.1 is installed but not read; the refusal says so instead of "Upgrade Longhorn".
    const off = await voe([`default/${V2_DISK}`, '--size', '20Gi', '--longhorn', 'off']);
    assert.strictEqual(off.code, 1, off.stdout + off.stderr);
    assert.match(off.stdout, /^Verdict: refused \(422 Invalid, longhorn-v2-version\)$/m);
    assert.match(
      off.stdout,
      /^Message: PVC_EXPAND: pvc default\/vm3-disk-0-v2abc is not online expandable with its provider\. .*\(StorageClass parameter dataEngine\).* the Longhorn version was not read: Longhorn objects are not read \(--longhorn off, .*--longhorn auto or on .*--longhorn-v2-expansion allow/m,
    );
    assert.notMatch(off.stdout, /Upgrade Longhorn|not found/);
  });

  it('a statically provisioned Longhorn PV is judged by the Volume recording it; with none, the engine is an internal error', async () => {
    // PVs made by hand for existing Longhorn volumes: their volumeHandle, not their name, names the volume.
    const known = pvc('vm5-disk-0-static', { volumeName: 'manual-pv' });
    const unknown = pvc('vm5-disk-1-static', { volumeName: 'lost-pv' });
    await cluster.apply({
      pvcs: [known, unknown],
      vms: [
        vm('vm5', {
          volumes: [
            { name: 'disk-0', persistentVolumeClaim: { claimName: 'vm5-disk-0-static' } },
            { name: 'disk-1', persistentVolumeClaim: { claimName: 'vm5-disk-1-static' } },
          ],
          templates: [],
        }),
      ],
      longhornVolumes: [
        longhornVolume({
          name: 'manual-volume',
          pvName: 'manual-pv',
          dataEngine: 'v2',
          encrypted: true,
        }),
      ],
      longhornEngines: [longhornEngine({ volume: 'manual-volume', dataEngine: 'v2' })],
    });
    await cluster.bindClaims([known, unknown], {
      'manual-pv': 'manual-volume',
      'lost-pv': 'lost-volume',
    });
    type Json = {
      findings: Array<{ check: string; decision: string; outcome: string; message: string }>;
    };
    const longhornOf = async (claim: string) => {
      const result = await voe([`default/${claim}`, '--size', '20Gi', '--json']);
      assert.strictEqual(result.code, 1, result.stdout + result.stderr);
      return (JSON.parse(result.stdout) as Json).findings.find(
        (finding) => finding.check === 'longhorn',
      );
    };
    const encrypted = await longhornOf('vm5-disk-0-static');
    assert.strictEqual(encrypted?.decision, 'longhorn-v2-encrypted');
    assert.match(encrypted?.message ?? '', /encrypted Longhorn v2 volume \(Volume CR\)/);
    const lost = await longhornOf('vm5-disk-1-static');
    assert.strictEqual(lost?.outcome, 'error');
    assert.strictEqual(lost?.decision, 'longhorn-volume-unknown');
    assert.match(
      lost?.message ?? '',
      /no Longhorn Volume in longhorn-system is named lost-pv or records PV lost-pv/,
    );
  });

  it('--setting names the Setting read; invalid JSON there is a code 500 refusal: exit 1', async () => {
    await cluster.createCustom(
      KINDS.settings,
      harvesterSetting('{"nfs.csi.k8s.io":', '{"driver.longhorn.io":true}', 'voe-broken'),
    );
    const result = await voe([`default/${NFS_DISK}`, '--size', '30Gi', '--setting', 'voe-broken']);
    assert.strictEqual(result.code, 1, result.stderr);
    assert.match(result.stdout, /^Verdict: refused \(500 InternalError, setting-invalid\)$/m);
    assert.match(result.stdout, /voe-broken/);
    assert.strictEqual(await requestOf(NFS_DISK), '10Gi');
  });

  it('a stopped VM: allowed offline', async () => {
    await cluster.patchCustomStatus(KINDS.vms, 'vm1', { printableStatus: 'Stopped', ready: false });
    const result = await voe([`default/${ROOT}`, '--size', '30Gi']);
    assert.strictEqual(result.code, 0);
    assert.match(result.stdout, /allowed-offline/);
  });

  it('a Filesystem PVC hotplugged on a running VMI only (virtctl addvolume without --persist) is refused as the webhook refuses it; once the VMI finished, offline', async () => {
    const claim = pvc('data-vmi-only', {
      provisioner: 'nfs.csi.k8s.io',
      className: 'nfs-csi',
      volumeMode: 'Filesystem',
      volumeName: 'pv-data-vmi-only',
    });
    const root = { name: 'disk-0', persistentVolumeClaim: { claimName: 'vm9-disk-0-root9' } };
    await cluster.apply({
      pvcs: [claim],
      vms: [vm('vm9', { volumes: [root], templates: [] })],
      vmis: [
        vmi('vm9', {
          volumes: [
            root,
            {
              name: 'data',
              persistentVolumeClaim: { claimName: 'data-vmi-only', hotpluggable: true },
            },
          ],
        }),
      ],
    });
    await cluster.bindClaims([claim]);
    type Json = {
      allowed: boolean;
      decision: string;
      findings: Array<{ check: string; decision: string; outcome: string; message: string }>;
    };
    const result = await voe(['default/data-vmi-only', '--size', '20Gi', '--json']);
    assert.strictEqual(result.code, 1, result.stdout + result.stderr);
    const decision = JSON.parse(result.stdout) as Json;
    const vmFinding = decision.findings.find((f) => f.check === 'vm');
    assert.strictEqual(vmFinding?.decision, 'online');
    assert.match(
      vmFinding?.message ?? '',
      /^Running VM\(s\) use PVC default\/data-vmi-only \(default\/vm9\): online expansion rules apply\. It was found on the running VirtualMachineInstance only, not in the VM's spec: VM default\/vm9;.* hotplug with --persist, or stop the VM before growing it\.$/,
    );
    const hotplug = decision.findings.find((f) => f.check === 'hotplug');
    assert.strictEqual(hotplug?.outcome, 'refuse');
    assert.match(
      hotplug?.message ?? '',
      /^PVC_EXPAND: Expansion of hotplugged PVC 'default\/data-vmi-only' in filesystem mode is not supported\. It is hotplugged into default\/vm9 \(found on the running VirtualMachineInstance only/,
    );

    await cluster.patchCustomStatus(KINDS.vmis, 'vm9', { phase: 'Succeeded' }, 'default');
    const offline = await voe(['default/data-vmi-only', '--size', '20Gi']);
    assert.strictEqual(offline.code, 0, offline.stdout + offline.stderr);
    assert.match(offline.stdout, /^Verdict: allowed \(allowed-offline\)/m);
    assert.strictEqual(await requestOf('data-vmi-only'), '10Gi', 'nothing changed');
  });

  it('a missing PVC exits 2 with CHECK_PVC_NOT_FOUND', async () => {
    const result = await voe(['default/nope', '--size', '20Gi']);
    assert.strictEqual(result.code, 2);
    assert.match(result.stderr, /CHECK_PVC_NOT_FOUND: PVC default\/nope not found/);
  });

  it('a user who may not read PVCs exits 2 with CHECK_API_FAILED (HTTP 403)', async () => {
    const { path } = await cp.mintKubeConfig('nobody');
    const result = await runVoe([
      'check',
      `default/${ROOT}`,
      '--size',
      '20Gi',
      '--kubeconfig',
      path,
    ]);
    assert.strictEqual(result.code, 2);
    assert.match(
      result.stderr,
      /CHECK_API_FAILED: reading PVC default\/vm1-disk-0-kq8zt failed \(HTTP 403\)/,
    );
  });

  it('what the API server refuses before any webhook: voe check answers as the real API server does, nothing changed', async () => {
    async function realAnswer(name: string, storage: string): Promise<number> {
      try {
        await cluster.resizeClaim('default', name, storage);
        return 200;
      } catch (error) {
        return (error as { code?: number }).code ?? 0;
      }
    }
    const cases: Array<{ name: string; size: string; decision: string }> = [
      { name: PENDING_DISK, size: '20Gi', decision: 'api-not-bound' },
      { name: FIXED_DISK, size: '20Gi', decision: 'api-expansion-not-allowed' },
      { name: ROOT, size: '5Gi', decision: 'api-below-capacity' },
      { name: ROOT, size: '0', decision: 'api-invalid-size' },
    ];
    for (const c of cases) {
      const result = await voe([`default/${c.name}`, '--size', c.size, '--json']);
      assert.strictEqual(result.code, 1, result.stdout + result.stderr);
      const decision = JSON.parse(result.stdout) as {
        allowed: boolean;
        code: number;
        decision: string;
        findings: Array<{ check: string }>;
      };
      assert.strictEqual(decision.decision, c.decision);
      assert.strictEqual(decision.findings[0]?.check, 'api-server');
      assert.strictEqual(
        await realAnswer(c.name, c.size),
        decision.code,
        `${c.name} -> ${c.size}: the real API server answers with another code than voe check's ${decision.code}`,
      );
      assert.strictEqual(await requestOf(c.name), '10Gi');
    }
  });

  it('LimitRanges, ResourceQuotas, the beta StorageClass annotation and a shrink to exactly status.capacity: voe check answers as the real API server does', async () => {
    const ns = 'policies';
    await cluster.core.createNamespace({ body: { metadata: { name: ns } } });
    const EXPANDABLE = 'longhorn-image-7r2k9';
    const PROVISIONED = pvc('x').metadata?.annotations ?? {};
    const claims = [
      pvc('limited', { namespace: ns, volumeName: 'pv-policies-limited' }),
      pvc('quota-bound', { namespace: ns, volumeName: 'pv-policies-quota' }),
      // The API server reads the beta annotation before spec.storageClassName (GetPersistentVolumeClaimClass).
      pvc('annotated-fixed', {
        namespace: ns,
        volumeName: 'pv-policies-annotated-fixed',
        annotations: { ...PROVISIONED, 'volume.beta.kubernetes.io/storage-class': 'fixed-size' },
      }),
      {
        ...pvc('annotated-only', {
          namespace: ns,
          volumeName: 'pv-policies-annotated-only',
          annotations: { ...PROVISIONED, 'volume.beta.kubernetes.io/storage-class': EXPANDABLE },
        }),
        spec: {
          ...pvc('x').spec,
          storageClassName: undefined,
          volumeName: 'pv-policies-annotated-only',
        },
      },
      pvc('recovering', { namespace: ns, volumeName: 'pv-policies-recovering' }),
    ];
    await cluster.apply({ pvcs: claims });
    await cluster.bindClaims(claims);
    // An expansion under way: request 20Gi, capacity still 10Gi.
    await cluster.resizeClaim(ns, 'recovering', '20Gi');
    await cluster.core.createNamespacedLimitRange({
      namespace: ns,
      body: {
        metadata: { name: 'pvc-size' },
        spec: {
          limits: [
            { type: 'PersistentVolumeClaim', max: { storage: '100Gi' }, min: { storage: '1Gi' } },
          ],
        },
      },
    });
    await cluster.core.createNamespacedResourceQuota({
      namespace: ns,
      body: { metadata: { name: 'storage' }, spec: { hard: { 'requests.storage': '75Gi' } } },
    });
    // kube-controller-manager's quota controller does not run here: write the status it would (all claims: 10+10+10+10+20 Gi).
    await cluster.core.patchNamespacedResourceQuotaStatus(
      {
        namespace: ns,
        name: 'storage',
        body: {
          status: { hard: { 'requests.storage': '75Gi' }, used: { 'requests.storage': '60Gi' } },
        },
      },
      MERGE_PATCH,
    );

    async function realAnswer(
      name: string,
      storage: string,
    ): Promise<{ code: number; message: string }> {
      try {
        await cluster.core.patchNamespacedPersistentVolumeClaim(
          {
            namespace: ns,
            name,
            dryRun: 'All',
            body: { spec: { resources: { requests: { storage } } } },
          },
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
    const cases: Array<{
      name: string;
      size: string;
      code: number;
      decision: string;
      real: RegExp;
    }> = [
      {
        name: 'limited',
        size: '200Gi',
        code: 403,
        decision: 'api-limit-range',
        real: /maximum storage usage per PersistentVolumeClaim is 100Gi, but request is 200Gi/,
      },
      {
        name: 'quota-bound',
        size: '30Gi',
        code: 403,
        decision: 'api-quota-exceeded',
        real: /exceeded quota: storage/,
      },
      { name: 'quota-bound', size: '25Gi', code: 200, decision: 'allowed-offline', real: /^$/ },
      {
        name: 'annotated-fixed',
        size: '20Gi',
        code: 403,
        decision: 'api-expansion-not-allowed',
        real: /only dynamically provisioned pvc can be resized/,
      },
      { name: 'annotated-only', size: '20Gi', code: 200, decision: 'allowed-offline', real: /^$/ },
      {
        name: 'recovering',
        size: '10Gi',
        code: 422,
        decision: 'api-below-capacity',
        real: /can not be less than status\.capacity/,
      },
      // Lower, but above status.capacity: a recovery, no more than is pending already: not judged.
      { name: 'recovering', size: '15Gi', code: 200, decision: 'not-resize', real: /^$/ },
    ];
    for (const c of cases) {
      const result = await voe([`${ns}/${c.name}`, '--size', c.size, '--json']);
      const decision = JSON.parse(result.stdout) as {
        allowed: boolean;
        code: number;
        decision: string;
      };
      const real = await realAnswer(c.name, c.size);
      assert.strictEqual(
        real.code,
        c.code,
        `${c.name} -> ${c.size}: the real API server answered ${real.code} ${real.message}`,
      );
      assert.match(real.message, c.real);
      assert.strictEqual(
        decision.allowed ? 200 : decision.code,
        c.code,
        `${c.name} -> ${c.size}: voe check said ${JSON.stringify(decision)}`,
      );
      assert.strictEqual(result.code, c.code === 200 ? 0 : 1);
      assert.strictEqual(decision.decision, c.decision);
    }
    assert.strictEqual(
      (await cluster.core.readNamespacedPersistentVolumeClaim({ namespace: ns, name: 'limited' }))
        .spec?.resources?.requests?.['storage'],
      '10Gi',
      'nothing changed',
    );
  });

  it('a user who may not list LimitRanges or ResourceQuotas still gets the rest of the check, with those named as not judged', async () => {
    const { path } = await cp.mintKubeConfig('reader');
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'check-reader' },
        rules: [
          { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get'] },
          { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['get'] },
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
        metadata: { name: 'check-reader' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'check-reader',
        },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'reader' }],
      },
    });
    let result: { code: number; stdout: string } = { code: -1, stdout: '' };
    for (let i = 0; i < 50; i++) {
      result = await runVoe([
        'check',
        `default/${ROOT}`,
        '--size',
        '20Gi',
        '--json',
        '--kubeconfig',
        path,
      ]);
      if (result.code !== 2) break;
      await new Promise((r) => setTimeout(r, 200)); // RBAC's informers pick up the new binding
    }
    const decision = JSON.parse(result.stdout) as {
      decision: string;
      findings: Array<{ outcome: string; decision: string; message: string }>;
    };
    const admin = JSON.parse(
      (await voe([`default/${ROOT}`, '--size', '20Gi', '--json'])).stdout,
    ) as {
      decision: string;
    };
    assert.strictEqual(decision.decision, admin.decision, 'the same decision as for an admin');
    const skipped = decision.findings
      .filter((f) => f.decision === 'api-policy-unreadable')
      .map((f) => f.message);
    assert.deepStrictEqual(skipped, [
      'Not judged: LimitRanges in default (HTTP 403) could not be read; the API server applies them too.',
      'Not judged: ResourceQuotas in default (HTTP 403) could not be read; the API server applies them too.',
    ]);
  });

  it('a user who may list VirtualMachines but not VirtualMachineInstances exits 2 naming that read (HTTP 403), rather than judging without them', async () => {
    const { path } = await cp.mintKubeConfig('no-vmis');
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'check-no-vmis' },
        rules: [
          {
            apiGroups: [''],
            resources: ['persistentvolumeclaims', 'limitranges', 'resourcequotas'],
            verbs: ['get', 'list'],
          },
          { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['get'] },
          {
            apiGroups: ['kubevirt.io'],
            resources: ['virtualmachines', 'kubevirts'],
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
        metadata: { name: 'check-no-vmis' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'check-no-vmis',
        },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'no-vmis' }],
      },
    });
    let result: { code: number; stdout: string; stderr: string } = {
      code: -1,
      stdout: '',
      stderr: '',
    };
    for (let i = 0; i < 50; i++) {
      result = await runVoe(['check', `default/${ROOT}`, '--size', '20Gi', '--kubeconfig', path]);
      if (/VirtualMachineInstances/.test(result.stderr)) break;
      await new Promise((r) => setTimeout(r, 200)); // RBAC's informers pick up the new binding
    }
    assert.strictEqual(result.code, 2, result.stdout + result.stderr);
    assert.match(
      result.stderr,
      /^voe: CHECK_API_FAILED: reading VirtualMachineInstances in default failed \(HTTP 403\): .*virtualmachineinstances/,
    );
  });

  it('--size is read as the real API server reads and stores it from a JSON merge patch (dry run): Go white space, escapes, U+FEFF, milli round-up, exponents', async () => {
    /** The real API server's answer to the merge patch voe check models: the stored request, or the HTTP code. */
    async function stored(size: string): Promise<{ storage?: string; code?: number }> {
      try {
        const claim = await cluster.core.patchNamespacedPersistentVolumeClaim(
          {
            namespace: 'default',
            name: ROOT,
            body: { spec: { resources: { requests: { storage: size } } } },
            dryRun: 'All',
          },
          MERGE_PATCH,
        );
        return { storage: claim.spec?.resources?.requests?.['storage'] };
      } catch (error) {
        return { code: (error as { code?: number }).code ?? 0 };
      }
    }
    // Refused by the API server (422), and by voe check before any API call (exit 2).
    for (const size of ['\ufeff20Gi', '\t20Gi', '20Gi\n', '\u202820Gi', '20Gi\u2029']) {
      assert.strictEqual((await stored(size)).code, 422, JSON.stringify(size));
      const result = await voe([`default/${ROOT}`, '--size', size]);
      assert.strictEqual(result.code, 2, JSON.stringify(size));
      assert.match(
        result.stderr,
        /^voe: KUBE_QUANTITY_INVALID: the size .* (contains a JSON escape sequence|contains characters a Kubernetes quantity cannot hold)/,
      );
    }
    // Accepted by both, judged as the value the API server stores.
    const accepted: Array<[string, string]> = [
      ['20Gi\u0085', '20Gi'],
      ['\u00a0 20Gi', '20Gi'],
      ['10737418239.9999', '10Gi'],
      ['10737418240.0001', '10737418240001m'],
      ['1e101', '1e101'],
      ['1e102', '1e102'],
    ];
    for (const [size, value] of accepted) {
      const answer = await stored(size);
      assert.ok(
        answer.storage !== undefined,
        `${JSON.stringify(size)}: the API server answered ${answer.code}`,
      );
      const result = await voe([`default/${ROOT}`, '--size', size, '--json']);
      assert.notStrictEqual(result.code, 2, result.stderr);
      const decision = JSON.parse(result.stdout) as { decision: string; to: string };
      assert.strictEqual(
        compareQuantities(decision.to, answer.storage),
        0,
        `${JSON.stringify(size)}: voe check judges ${decision.to}, the API server stores ${answer.storage}`,
      );
      assert.strictEqual(compareQuantities(decision.to, value), 0);
      if (compareQuantities(value, '10Gi') === 0)
        assert.strictEqual(decision.decision, 'not-resize', 'the same size: an accepted no-op');
    }
    assert.strictEqual(await requestOf(ROOT), '10Gi');
  });
});
