import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkResize, resolveAdmissionOptions, type AdmissionCaches } from '../../../src/webhook/index.js';
import {
  harvesterSetting, kubeVirt, longhornEngine, longhornImageClass, longhornVersion, longhornVolume, pvc, storageClass, vm,
} from '../../support/admission-objects.js';
import { memoryCaches } from '../../support/admission-caches.js';

const ROOT = 'vm1-disk-0-kq8zt';

describe('checkResize (voe check)', () => {
  const state = {
    storageClasses: [longhornImageClass(), storageClass('nfs-csi', 'nfs.csi.k8s.io')],
    vms: [vm('vm1')], kubeVirts: [kubeVirt({ gates: [] })], settings: [harvesterSetting('')],
    longhornVolumes: [longhornVolume()], longhornEngines: [longhornEngine()], longhornSettings: [longhornVersion('v1.9.1')],
  };

  it('reports the decision with every finding and the sizes', () => {
    const claim = pvc(ROOT, { provisioner: 'nfs.csi.k8s.io', className: 'nfs-csi', volumeMode: 'Filesystem' });
    const caches = memoryCaches({ ...state, pvcs: [claim] }) as AdmissionCaches;
    const result = checkResize(claim, '20Gi', caches, resolveAdmissionOptions());
    assert.equal(result.pvc, `default/${ROOT}`);
    assert.equal(result.from, '10Gi');
    assert.equal(result.to, '20Gi');
    assert.equal(result.allowed, false);
    assert.equal(result.decision, 'gate-missing');
    assert.deepEqual(result.findings.filter((f) => f.outcome === 'refuse').map((f) => f.decision), ['gate-missing', 'provisioner-not-validated']);
  });

  it('a PVC whose class only the beta storage-class annotation names: that class\'s provisioner is judged too, whatever the provisioner annotation says', () => {
    // The API server reads the PVC's class from that annotation (GetPersistentVolumeClaimClass);
    // Harvester's rule reads spec.storageClassName, which is empty, so only the provisioner
    // annotation would be judged, and it was rewritten to a validated driver in an earlier update.
    const annotations = { 'volume.beta.kubernetes.io/storage-class': 'nfs-csi', 'volume.beta.kubernetes.io/storage-provisioner': 'topolvm.io' };
    const claim = pvc(ROOT, { annotations, volumeMode: 'Filesystem' });
    const classless = { ...claim, spec: { ...claim.spec, storageClassName: undefined } };
    const caches = memoryCaches({ ...state, kubeVirts: [kubeVirt()], settings: [harvesterSetting('{"topolvm.io":true}')], pvcs: [classless] }) as AdmissionCaches;
    const result = checkResize(classless, '20Gi', caches, resolveAdmissionOptions());
    assert.equal(result.allowed, false, result.message);
    assert.equal(result.decision, 'provisioner-not-validated');
    assert.match(result.message, /Provisioner nfs\.csi\.k8s\.io is not validated .*names provisioner topolvm\.io, but nfs\.csi\.k8s\.io is named by its StorageClass/);
    // Both validated: allowed, and the finding names both.
    const validated = memoryCaches({ ...state, kubeVirts: [kubeVirt()], settings: [harvesterSetting('{"topolvm.io":true,"nfs.csi.k8s.io":true}')], pvcs: [classless] }) as AdmissionCaches;
    assert.equal(checkResize(classless, '20Gi', validated, resolveAdmissionOptions()).allowed, true);
  });

  it('a size that does not grow is nothing to judge', () => {
    const claim = pvc(ROOT);
    const result = checkResize(claim, '10Gi', memoryCaches({ ...state, pvcs: [claim] }) as AdmissionCaches, resolveAdmissionOptions());
    assert.equal(result.allowed, true);
    assert.equal(result.decision, 'not-resize');
    assert.equal(result.findings[0]?.check, 'api-server');
  });

  it('a shrink below the capacity is refused as the API server refuses it (not "allowed")', () => {
    const claim = pvc(ROOT);
    const result = checkResize(claim, '5Gi', memoryCaches({ ...state, pvcs: [claim] }) as AdmissionCaches, resolveAdmissionOptions());
    assert.equal(result.allowed, false);
    assert.equal(result.code, 422);
    assert.equal(result.reason, 'Invalid');
    assert.equal(result.decision, 'api-below-capacity');
  });

  it('a StorageClass without allowVolumeExpansion: refused 403 even where the webhook would allow (stopped VM)', () => {
    const claim = pvc(ROOT);
    const noExpansion = { ...longhornImageClass(), allowVolumeExpansion: false };
    const caches = memoryCaches({ ...state, storageClasses: [noExpansion], vms: [vm('vm1', { status: 'Stopped' })], pvcs: [claim] }) as AdmissionCaches;
    const result = checkResize(claim, '20Gi', caches, resolveAdmissionOptions());
    assert.equal(result.allowed, false);
    assert.equal(result.code, 403);
    assert.equal(result.reason, 'Forbidden');
    assert.equal(result.decision, 'api-expansion-not-allowed');
    // The webhook's own findings are still listed after the API server's.
    assert.ok(result.findings.some((f) => f.check === 'vm' && f.decision === 'allowed-offline'), JSON.stringify(result.findings));
  });

  it('allowed once the gate is on', () => {
    const claim = pvc(ROOT);
    const caches = memoryCaches({ ...state, kubeVirts: [kubeVirt()], pvcs: [claim] }) as AdmissionCaches;
    const result = checkResize(claim, '20Gi', caches, resolveAdmissionOptions());
    assert.equal(result.allowed, true);
    assert.equal(result.decision, 'allowed');
    assert.ok(result.findings.every((f) => f.outcome === 'pass'));
  });
});
