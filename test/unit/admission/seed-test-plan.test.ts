/**
 * The admission test plan (docs/demo.md) as admission cases through the PVC validator over
 * caches. The same cases run against a real kube-apiserver in
 * test/integration/webhook/pvc-resize.test.ts.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { AdmissionOptions } from '../../../src/admission/admission-options.js';
import type { PersistentVolumeClaim } from '../../../src/model/index.js';
import { createPvcResizeValidator } from '../../../src/admission/validators/pvc-resize-validator.js';
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
  storageClass,
  vm,
} from '../../support/webhook/admission-objects.js';
import { memorySource, type ClusterState } from '../../support/webhook/admission-caches.js';

const ROOT = 'vm1-disk-0-kq8zt';
const NFS_CLASS = storageClass('nfs-csi', 'nfs.csi.k8s.io', {
  server: 'nfs-server.default.svc.cluster.local',
  share: '/',
});
const TOPOLVM_CLASS = storageClass('topolvm-provisioner', 'topolvm.io', {
  'csi.storage.k8s.io/fstype': 'xfs',
});
const LONGHORN_V2_CLASS = storageClass('longhorn-v2', 'driver.longhorn.io', {
  dataEngine: 'v2',
  numberOfReplicas: '3',
  migratable: 'true',
});

function harvester(overrides: ClusterState = {}): ClusterState {
  return {
    storageClasses: [longhornImageClass(), LONGHORN_V2_CLASS, NFS_CLASS, TOPOLVM_CLASS],
    vms: [vm('vm1')],
    kubeVirts: [kubeVirt()],
    settings: [harvesterSetting('')],
    longhornVolumes: [longhornVolume()],
    longhornEngines: [longhornEngine()],
    longhornSettings: [longhornVersion('v1.9.1')],
    ...overrides,
  };
}

function expand(
  state: ClusterState,
  claim: PersistentVolumeClaim,
  options: Partial<AdmissionOptions> = {},
) {
  const { source, options: resolved, caches } = memorySource({ ...state, pvcs: [claim] }, options);
  const validator = createPvcResizeValidator({ source, options: resolved });
  const run = () =>
    validator.validate(
      admissionRequest({
        operation: 'UPDATE',
        resource: PVC_RESOURCE,
        kind: PVC_KIND,
        oldObject: claim,
        object: resized(claim, '20Gi'),
        name: claim.metadata?.name ?? '',
        namespace: 'default',
      }),
    );
  return { run, caches };
}

const hotplugVm = (claimName: string) =>
  vm('vm1', {
    volumes: [
      { name: 'disk-0', persistentVolumeClaim: { claimName: ROOT } },
      { name: claimName, persistentVolumeClaim: { claimName, hotpluggable: true } },
    ],
  });

describe('the admission test plan (admission)', () => {
  it('1. Longhorn v1 Block root disk of a running VM: allowed', async () => {
    assert.isTrue((await expand(harvester(), pvc(ROOT)).run()).allowed);
  });

  describe('2. Longhorn v2 Block root disk', () => {
    const v2 = (version: string) =>
      harvester({
        longhornVolumes: [longhornVolume({ dataEngine: 'v2' })],
        longhornEngines: [longhornEngine({ dataEngine: 'v2' })],
        longhornSettings: [longhornVersion(version)],
      });
    const claim = pvc(ROOT, { className: 'longhorn-v2' });
    const table: Array<[string, string, AdmissionOptions['longhornV2Expansion'], boolean, string]> =
      [
        [
          'Harvester v1.6 (Longhorn v1.9.1), policy auto: refused (seed)',
          'v1.9.1',
          'auto',
          false,
          'longhorn-v2-version',
        ],
        [
          'Harvester v1.7 (Longhorn v1.10.1), policy auto: allowed',
          'v1.10.1',
          'auto',
          true,
          'allowed',
        ],
        ['Longhorn v1.10.1, policy deny: refused', 'v1.10.1', 'deny', false, 'longhorn-v2'],
        ['Longhorn v1.9.1, policy allow: allowed', 'v1.9.1', 'allow', true, 'allowed'],
      ];
    for (const [name, version, policy, allowed, decision] of table) {
      it(name, async () => {
        const verdict = await expand(v2(version), claim, { longhornV2Expansion: policy }).run();
        assert.strictEqual(verdict.allowed, allowed, verdict.message);
        assert.strictEqual(verdict.decision, decision);
      });
    }
  });

  it('3. NFS Filesystem root disk: refused, then allowed after the Setting lists nfs.csi.k8s.io', async () => {
    const claim = pvc(ROOT, {
      provisioner: 'nfs.csi.k8s.io',
      className: 'nfs-csi',
      volumeMode: 'Filesystem',
    });
    const { run, caches } = expand(harvester(), claim);
    const refused = await run();
    assert.isFalse(refused.allowed);
    assert.strictEqual(refused.code, 422);
    assert.ok(
      refused.message?.startsWith(
        `PVC_EXPAND: pvc default/${ROOT} is not online expandable with its provider. `,
      ),
    );
    caches.settings.set(harvesterSetting('{"nfs.csi.k8s.io":true}'));
    assert.deepStrictEqual(await run(), { allowed: true, decision: 'allowed' });
  });

  it('4. TopoLVM PVC hotplugged in Block mode: refused, then allowed once topolvm.io is validated', async () => {
    const claim = pvc('data-topolvm', {
      provisioner: 'topolvm.io',
      className: 'topolvm-provisioner',
      volumeMode: 'Block',
    });
    const { run, caches } = expand(
      harvester({
        settings: [harvesterSetting('{"nfs.csi.k8s.io":true}')],
        vms: [hotplugVm('data-topolvm')],
      }),
      claim,
    );
    assert.strictEqual((await run()).decision, 'provisioner-not-validated');
    caches.settings.set(harvesterSetting('{"nfs.csi.k8s.io":true, "topolvm.io":true}'));
    assert.deepStrictEqual(await run(), { allowed: true, decision: 'allowed' });
  });

  it('5. hotplugged Filesystem PVC: refused even with the driver validated', async () => {
    const claim = pvc('data-topolvm', {
      provisioner: 'topolvm.io',
      className: 'topolvm-provisioner',
      volumeMode: 'Filesystem',
    });
    const verdict = await expand(
      harvester({
        settings: [harvesterSetting('{"topolvm.io":true}')],
        vms: [hotplugVm('data-topolvm')],
      }),
      claim,
    ).run();
    assert.isFalse(verdict.allowed);
    assert.strictEqual(verdict.decision, 'hotplug-filesystem');
    assert.ok(
      verdict.message?.startsWith(
        "PVC_EXPAND: Expansion of hotplugged PVC 'default/data-topolvm' in filesystem mode is not supported. ",
      ),
    );
  });

  it('6. stopped VM: allowed (offline), even for an unvalidated driver', async () => {
    const claim = pvc(ROOT, {
      provisioner: 'nfs.csi.k8s.io',
      className: 'nfs-csi',
      volumeMode: 'Filesystem',
    });
    const verdict = await expand(
      harvester({ vms: [vm('vm1', { status: 'Stopped' })] }),
      claim,
    ).run();
    assert.deepStrictEqual(verdict, { allowed: true, decision: 'allowed-offline' });
  });

  it('7. ExpandDisks missing (KubeVirt v1.5.2): refused', async () => {
    const verdict = await expand(
      harvester({ kubeVirts: [kubeVirt({ gates: ['LiveMigration', 'HotplugVolumes'] })] }),
      pvc(ROOT),
    ).run();
    assert.strictEqual(verdict.decision, 'gate-missing');
    assert.ok(
      verdict.message?.startsWith('PVC_EXPAND: kubevirt ExpandDisks not included in featureGate. '),
    );
  });

  it('8. KubeVirt v1.9.0 without ExpandDisks listed (GA): allowed', async () => {
    const verdict = await expand(
      harvester({ kubeVirts: [kubeVirt({ gates: ['LiveMigration'], version: 'v1.9.0' })] }),
      pvc(ROOT),
    ).run();
    assert.deepStrictEqual(verdict, { allowed: true, decision: 'allowed' });
  });
});
