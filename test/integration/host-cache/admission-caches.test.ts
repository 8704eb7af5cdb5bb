/**
 * The production adapter: src/kube informers on a real kube-apiserver feeding the three
 * validators. Objects are written the way Harvester, KubeVirt and Longhorn write them; the
 * decisions follow the cluster as it changes (watch), without any API call per request.
 */
import { after, describe, it } from 'mocha';
import { assert } from 'chai';
import type { AdmissionRequest, Validator } from '../../../src/admission/validators/validator.js';
import { VMS_BY_PVC_INDEX } from '../../../src/host-cache/cache-snapshot-source.js';
import { startAdmissionCaches } from '../../../src/host-cache/start-admission-caches.js';
import { createAdmissionValidators } from '../../../src/webhook/create-admission-validators.js';
import { eventuallyValue } from '../../support/eventually.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { KINDS, StagedCluster } from '../../../src/demo/staged-cluster.js';
import {
  admissionRequest,
  harvesterSetting,
  kubeVirt,
  longhornEngine,
  longhornImageClass,
  longhornVersion,
  longhornVolume,
  pvc,
  PVC_KIND,
  PVC_RESOURCE,
  resized,
  SETTING_KIND,
  SETTING_RESOURCE,
  storageClass,
  templateEntry,
  vm,
  VM_KIND,
  VM_RESOURCE,
} from '../../support/webhook/admission-objects.js';

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
const ROOT = 'vm1-disk-0-kq8zt';
const NFS_DISK = 'vm2-disk-0-nfs01';

await cluster.apply({
  storageClasses: [
    longhornImageClass(),
    storageClass('nfs-csi', 'nfs.csi.k8s.io', {
      server: 'nfs-server.default.svc.cluster.local',
      share: '/',
    }),
  ],
  pvcs: [
    pvc(ROOT),
    pvc(NFS_DISK, {
      provisioner: 'nfs.csi.k8s.io',
      className: 'nfs-csi',
      volumeMode: 'Filesystem',
    }),
  ],
  vms: [
    vm('vm1'),
    vm('vm2', {
      volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: NFS_DISK } }],
      templates: [],
    }),
  ],
  kubeVirts: [kubeVirt()],
  settings: [harvesterSetting('')],
  longhornVolumes: [longhornVolume()],
  longhornEngines: [longhornEngine()],
  longhornSettings: [longhornVersion('v1.9.1')],
});

const started = startAdmissionCaches({ kubeConfig: cp.kubeConfig });
const [pvcResize, vmValidator, settingValidator] = createAdmissionValidators({
  caches: started.caches.admission,
  csiDrivers: started.caches.csiDrivers,
}) as [Validator, Validator, Validator];

function grow(name: string, to = '20Gi', extra: Parameters<typeof pvc>[1] = {}): AdmissionRequest {
  const claim = pvc(name, extra);
  return admissionRequest({
    operation: 'UPDATE',
    resource: PVC_RESOURCE,
    kind: PVC_KIND,
    oldObject: claim,
    object: resized(claim, to),
    name,
    namespace: 'default',
  });
}
const NFS_OPTIONS = {
  provisioner: 'nfs.csi.k8s.io',
  className: 'nfs-csi',
  volumeMode: 'Filesystem' as const,
};
// Synchronous right after the start: no list has completed, so a judged request is refused.
const beforeSync = { ready: started.ready(), verdict: pvcResize.validate(grow(ROOT)) };

describe('admission caches on a real kube-apiserver', () => {
  after(() => started.stop());

  it('refuses with 500 until the informers have synced, then decides from them', async () => {
    assert.isFalse(beforeSync.ready);
    assert.strictEqual((await beforeSync.verdict).decision, 'cache-not-synced');
    await eventuallyValue(async () => started.ready(), Boolean, 'caches ready');
    assert.deepStrictEqual(await pvcResize.validate(grow(ROOT)), {
      allowed: true,
      decision: 'allowed',
    });
    const nfs = await pvcResize.validate(grow(NFS_DISK, '20Gi', NFS_OPTIONS));
    assert.strictEqual(nfs.decision, 'provisioner-not-validated');
  });

  it('the caches keep the objects without the managedFields the API server wrote', async () => {
    const { CoreV1Api } = await import('@kubernetes/client-node');
    const stored = await cp.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedPersistentVolumeClaim({ name: ROOT, namespace: 'default' });
    assert.ok(
      (stored.metadata?.managedFields ?? []).length > 0,
      'the API server wrote managedFields',
    );
    const cached = started.caches.admission.pvcs.get('default', ROOT);
    assert.strictEqual(cached?.metadata?.resourceVersion, stored.metadata?.resourceVersion);
    assert.strictEqual(
      cached?.metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'],
      stored.metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'],
    );
    assert.isFalse(cached?.metadata && 'managedFields' in cached.metadata);
    const cachedVm = started.caches.admission.vms.get('default', 'vm1');
    assert.strictEqual(cachedVm?.metadata?.name, 'vm1');
    assert.isFalse(cachedVm?.metadata && 'managedFields' in cachedVm.metadata);
    assert.deepStrictEqual(
      started.caches.admission.vms
        .byIndex(VMS_BY_PVC_INDEX, `default/${ROOT}`)
        .map((v) => v.metadata?.name),
      ['vm1'],
    );
  });

  it('follows the Setting through the watch', async () => {
    await cluster.patchCustom(KINDS.settings, 'csi-online-expand-validation', {
      value: '{"nfs.csi.k8s.io":true}',
    });
    await eventuallyValue(
      () => Promise.resolve(pvcResize.validate(grow(NFS_DISK, '20Gi', NFS_OPTIONS))),
      (v) => v.allowed,
      'NFS allowed after the Setting changed',
    );
  });

  it('follows the KubeVirt feature gates and the VM status', async () => {
    await cluster.patchCustom(
      KINDS.kubeVirts,
      'kubevirt',
      { spec: { configuration: { developerConfiguration: { featureGates: ['LiveMigration'] } } } },
      'harvester-system',
    );
    await eventuallyValue(
      () => Promise.resolve(pvcResize.validate(grow(ROOT))),
      (v) => v.decision === 'gate-missing',
      'gate-missing',
    );
    await cluster.patchCustomStatus(
      KINDS.kubeVirts,
      'kubevirt',
      { observedKubeVirtVersion: 'v1.9.0' },
      'harvester-system',
    );
    await eventuallyValue(
      () => Promise.resolve(pvcResize.validate(grow(ROOT))),
      (v) => v.decision === 'allowed',
      'GA on v1.9.0',
    );
    await cluster.patchCustomStatus(
      KINDS.kubeVirts,
      'kubevirt',
      { observedKubeVirtVersion: 'v1.5.2' },
      'harvester-system',
    );
    await eventuallyValue(
      () => Promise.resolve(pvcResize.validate(grow(ROOT))),
      (v) => v.decision === 'gate-missing',
      'gate-missing again',
    );
    await cluster.patchCustomStatus(KINDS.vms, 'vm1', { printableStatus: 'Stopped', ready: false });
    await eventuallyValue(
      () => Promise.resolve(pvcResize.validate(grow(ROOT))),
      (v) => v.decision === 'allowed-offline',
      'offline once stopped',
    );
    await cluster.patchCustomStatus(KINDS.vms, 'vm1', { printableStatus: 'Running', ready: true });
    await cluster.patchCustom(
      KINDS.kubeVirts,
      'kubevirt',
      {
        spec: {
          configuration: {
            developerConfiguration: { featureGates: ['LiveMigration', 'ExpandDisks'] },
          },
        },
      },
      'harvester-system',
    );
    await eventuallyValue(
      () => Promise.resolve(pvcResize.validate(grow(ROOT))),
      (v) => v.decision === 'allowed',
      'allowed again',
    );
  });

  it('follows the Longhorn Volume data engine and version', async () => {
    await cluster.patchCustom(
      KINDS.longhornVolumes,
      longhornVolume().metadata!.name!,
      { spec: { dataEngine: 'v2' } },
      'longhorn-system',
    );
    await eventuallyValue(
      () => Promise.resolve(pvcResize.validate(grow(ROOT))),
      (v) => v.decision === 'longhorn-v2-version',
      'v2 refused on Longhorn v1.9.1',
    );
    await cluster.patchCustom(
      KINDS.longhornSettings,
      'current-longhorn-version',
      { value: 'v1.10.1' },
      'longhorn-system',
    );
    await eventuallyValue(
      () => Promise.resolve(pvcResize.validate(grow(ROOT))),
      (v) => v.decision === 'allowed',
      'v2 allowed on Longhorn v1.10.1',
    );
  });

  it('the VM path judges a larger template against the live PVC from the cache', async () => {
    const before = vm('vm1');
    const after = {
      ...before,
      metadata: {
        ...before.metadata,
        annotations: {
          ...before.metadata!.annotations,
          'harvesterhci.io/volumeClaimTemplates': JSON.stringify([templateEntry(ROOT, '5Gi')]),
        },
      },
    };
    const shrink = await vmValidator.validate(
      admissionRequest({
        operation: 'UPDATE',
        resource: VM_RESOURCE,
        kind: VM_KIND,
        oldObject: before,
        object: after,
      }),
    );
    assert.strictEqual(shrink.decision, 'template-shrink');
    const bigger = {
      ...after,
      metadata: {
        ...after.metadata,
        annotations: {
          ...after.metadata.annotations,
          'harvesterhci.io/volumeClaimTemplates': JSON.stringify([templateEntry(ROOT, '40Gi')]),
        },
      },
    };
    assert.isTrue(
      (
        await vmValidator.validate(
          admissionRequest({
            operation: 'UPDATE',
            resource: VM_RESOURCE,
            kind: VM_KIND,
            oldObject: before,
            object: bigger,
          }),
        )
      ).allowed,
    );
  });

  it('the Setting path warns about drivers without a CSIDriver object', async () => {
    await cp.kubeConfig
      .makeApiClient((await import('@kubernetes/client-node')).StorageV1Api)
      .createCSIDriver({
        body: {
          metadata: { name: 'nfs.csi.k8s.io' },
          spec: { attachRequired: false, volumeLifecycleModes: ['Persistent'] },
        },
      });
    const request = admissionRequest({
      operation: 'UPDATE',
      resource: SETTING_RESOURCE,
      kind: SETTING_KIND,
      object: harvesterSetting('{"nfs.csi.k8s.io":true,"topolvm.io":true}'),
    });
    const verdict = await eventuallyValue(
      () => Promise.resolve(settingValidator.validate(request)),
      (v) => (v.warnings ?? []).every((w) => !w.includes('nfs.csi.k8s.io')),
      'CSIDriver seen',
    );
    assert.isTrue(verdict.allowed);
    assert.ok(verdict.warnings?.some((w) => w.includes('"topolvm.io"')));
    assert.ok(verdict.warnings?.some((w) => w.includes('"driver.longhorn.io"')));
  });
});
