/**
 * `voe check` against a real kube-apiserver holding real-shaped Harvester, KubeVirt and
 * Longhorn objects: the same decision as the webhook, every finding, nothing changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { useControlPlane } from '../../support/use-control-plane.js';
import { KINDS, StagedCluster } from '../../../src/demo/index.js';
import {
  harvesterSetting, kubeVirt, longhornEngine, longhornImageClass, longhornVersion, longhornVolume, pvc, storageClass, vm,
} from '../../support/admission-objects.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);

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
  pvc(NFS_DISK, { provisioner: 'nfs.csi.k8s.io', className: 'nfs-csi', volumeMode: 'Filesystem', volumeName: NFS_PV }),
  pvc(V2_DISK, { className: 'longhorn-v2', volumeName: V2_PV }),
  pvc(PENDING_DISK, { volumeName: 'pvc-never-bound' }),
  pvc(FIXED_DISK, { className: 'fixed-size', volumeName: FIXED_PV }),
];

await cluster.apply({
  storageClasses: [
    longhornImageClass(),
    storageClass('nfs-csi', 'nfs.csi.k8s.io', { server: 'nfs-server.default.svc.cluster.local', share: '/' }),
    storageClass('longhorn-v2', 'driver.longhorn.io', { dataEngine: 'v2', numberOfReplicas: '3' }),
    { ...storageClass('fixed-size', 'driver.longhorn.io'), allowVolumeExpansion: false },
  ],
  pvcs: CLAIMS,
  vms: [
    vm('vm1'),
    vm('vm2', { volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: NFS_DISK } }], templates: [] }),
    vm('vm3', { volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: V2_DISK } }], templates: [] }),
  ],
  kubeVirts: [kubeVirt({ gates: ['LiveMigration', 'HotplugVolumes'] })],
  settings: [harvesterSetting('')],
  longhornVolumes: [longhornVolume(), longhornVolume({ name: V2_PV, dataEngine: 'v2' })],
  longhornEngines: [longhornEngine(), longhornEngine({ volume: V2_PV, dataEngine: 'v2' })],
  longhornSettings: [longhornVersion('v1.9.1')],
});
// The PV binder's part (kube-controller-manager does not run here): every claim but PENDING_DISK is Bound.
await cluster.bindClaims(CLAIMS.filter((claim) => claim.metadata?.name !== PENDING_DISK));

function voe(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, 'check', ...args, '--kubeconfig', cp.kubeconfigPath], (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

async function requestOf(name: string): Promise<string | undefined> {
  const claim = await cluster.core.readNamespacedPersistentVolumeClaim({ namespace: 'default', name });
  return claim.spec?.resources?.requests?.['storage'];
}

test('refused while ExpandDisks is missing: exit 1, every reason printed, nothing changed', async () => {
  const result = await voe([`default/${ROOT}`, '--size', '20Gi']);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stdout, /^PVC default\/vm1-disk-0-kq8zt: 10Gi -> 20Gi$/m);
  assert.match(result.stdout, /^Verdict: refused \(422 Invalid, gate-missing\)$/m);
  assert.match(result.stdout, /\[refuse\] expand-disks +PVC_EXPAND: kubevirt ExpandDisks not included in featureGate\./);
  assert.match(result.stdout, /\[pass\] +longhorn +Longhorn data engine v1 \(from Volume CR\)/);
  assert.match(result.stdout, /Nothing was changed\./);
  assert.equal(await requestOf(ROOT), '10Gi');
});

test('--json carries the same decision and all findings', async () => {
  const result = await voe([`default/${NFS_DISK}`, '--size', '15Gi', '--json']);
  assert.equal(result.code, 1, result.stderr);
  const decision = JSON.parse(result.stdout) as { allowed: boolean; decision: string; findings: Array<{ decision: string; outcome: string }>; from: string; to: string };
  assert.equal(decision.allowed, false);
  assert.equal(decision.decision, 'gate-missing');
  assert.equal(decision.from, '10Gi');
  assert.equal(decision.to, '15Gi');
  assert.deepEqual(decision.findings.filter((f) => f.outcome === 'refuse').map((f) => f.decision), ['gate-missing', 'provisioner-not-validated']);
});

test('allowed once the gate is listed (exit 0); NFS follows the Setting; Longhorn v2 follows the policy', async () => {
  const gates = ['LiveMigration', 'HotplugVolumes', 'ExpandDisks'];
  await cluster.patchCustom(KINDS.kubeVirts, 'kubevirt', { spec: { configuration: { developerConfiguration: { featureGates: gates } } } }, 'harvester-system');

  const root = await voe([`default/${ROOT}`, '--size', '20Gi']);
  assert.equal(root.code, 0, root.stdout + root.stderr);
  assert.match(root.stdout, /^Verdict: allowed \(allowed\)$/m);

  const nfsBefore = await voe([`default/${NFS_DISK}`, '--size', '20Gi']);
  assert.equal(nfsBefore.code, 1);
  assert.match(nfsBefore.stdout, /PVC_EXPAND: pvc default\/vm2-disk-0-nfs01 is not online expandable with its provider\./);
  await cluster.patchCustom(KINDS.settings, 'csi-online-expand-validation', { value: '{"nfs.csi.k8s.io":true}' });
  assert.equal((await voe([`default/${NFS_DISK}`, '--size', '20Gi'])).code, 0);

  const v2 = await voe([`default/${V2_DISK}`, '--size', '20Gi']);
  assert.equal(v2.code, 1);
  assert.match(v2.stdout, /longhorn-v2-version/);
  assert.equal((await voe([`default/${V2_DISK}`, '--size', '20Gi', '--longhorn-v2-expansion', 'allow'])).code, 0);
  await cluster.patchCustom(KINDS.longhornSettings, 'current-longhorn-version', { value: 'v1.10.1' }, 'longhorn-system');
  assert.equal((await voe([`default/${V2_DISK}`, '--size', '20Gi'])).code, 0);
});

test('--setting names the Setting read; invalid JSON there is a code 500 refusal: exit 1', async () => {
  await cluster.createCustom(KINDS.settings, harvesterSetting('{"nfs.csi.k8s.io":', '{"driver.longhorn.io":true}', 'voe-broken'));
  const result = await voe([`default/${NFS_DISK}`, '--size', '30Gi', '--setting', 'voe-broken']);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stdout, /^Verdict: refused \(500 InternalError, setting-invalid\)$/m);
  assert.match(result.stdout, /voe-broken/);
  assert.equal(await requestOf(NFS_DISK), '10Gi');
});

test('a stopped VM: allowed offline', async () => {
  await cluster.patchCustomStatus(KINDS.vms, 'vm1', { printableStatus: 'Stopped', ready: false });
  const result = await voe([`default/${ROOT}`, '--size', '30Gi']);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /allowed-offline/);
});

test('a missing PVC exits 2 with CHECK_PVC_NOT_FOUND', async () => {
  const result = await voe(['default/nope', '--size', '20Gi']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /CHECK_PVC_NOT_FOUND: PVC default\/nope not found/);
});

test('a user who may not read PVCs exits 2 with CHECK_API_FAILED (HTTP 403)', async () => {
  const { path } = await cp.mintKubeConfig('nobody');
  const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [MAIN, 'check', `default/${ROOT}`, '--size', '20Gi', '--kubeconfig', path], (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr });
    });
  });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /CHECK_API_FAILED: reading PVC default\/vm1-disk-0-kq8zt failed \(HTTP 403\)/);
});

test('what the API server refuses before any webhook: voe check answers as the real API server does, nothing changed', async () => {
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
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const decision = JSON.parse(result.stdout) as { allowed: boolean; code: number; decision: string; findings: Array<{ check: string }> };
    assert.equal(decision.decision, c.decision);
    assert.equal(decision.findings[0]?.check, 'api-server');
    assert.equal(await realAnswer(c.name, c.size), decision.code, `${c.name} -> ${c.size}: the real API server answers with another code than voe check's ${decision.code}`);
    assert.equal(await requestOf(c.name), '10Gi');
  }
});
