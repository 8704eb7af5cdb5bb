import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { resolveAdmissionOptions } from '../../../src/admission/admission-options.js';
import { checkResize } from '../../../src/check/check-resize.js';
import { readCheckSize } from '../../../src/check/read-check-size.js';
import type { AdmissionCaches } from '../../../src/host-cache/cache-snapshot-source.js';
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
} from '../../support/webhook/admission-objects.js';
import { memoryCaches } from '../../support/webhook/admission-caches.js';

const ROOT = 'vm1-disk-0-kq8zt';

describe('checkResize (voe check)', () => {
  const state = {
    storageClasses: [longhornImageClass(), storageClass('nfs-csi', 'nfs.csi.k8s.io')],
    vms: [vm('vm1')],
    kubeVirts: [kubeVirt({ gates: [] })],
    settings: [harvesterSetting('')],
    longhornVolumes: [longhornVolume()],
    longhornEngines: [longhornEngine()],
    longhornSettings: [longhornVersion('v1.9.1')],
  };

  it('judges --size as the API server stores it: rounded up to milli units (10737418239.9999 on a 10Gi PVC changes nothing)', () => {
    const claim = pvc(ROOT, {
      provisioner: 'nfs.csi.k8s.io',
      className: 'nfs-csi',
      volumeMode: 'Filesystem',
    });
    const caches = memoryCaches({ ...state, pvcs: [claim] }) as AdmissionCaches;
    const same = checkResize(
      claim,
      readCheckSize('10737418239.9999'),
      caches,
      resolveAdmissionOptions(),
    );
    assert.isTrue(same.allowed, same.message);
    assert.strictEqual(same.decision, 'not-resize');
    assert.strictEqual(same.to, '10737418240');
    const grown = checkResize(
      claim,
      readCheckSize('10737418240.0001'),
      caches,
      resolveAdmissionOptions(),
    );
    assert.strictEqual(grown.to, '10737418240001m');
    assert.strictEqual(grown.decision, 'gate-missing', 'a growth by a milli unit');
  });

  it('readCheckSize reads --size as a JSON string through readJsonQuantity, then rounds up to milli units', () => {
    assert.strictEqual(readCheckSize('20Gi'), '20Gi');
    assert.strictEqual(readCheckSize(' 20Gi\u0085\u00a0'), '20Gi', 'Go white space');
    assert.strictEqual(
      readCheckSize('+20Gi'),
      '+20Gi',
      'kept as written when the rounding keeps its value',
    );
    assert.strictEqual(readCheckSize('1e101'), '1e101');
    assert.strictEqual(readCheckSize('1.0000000001'), '1001m');
    assert.strictEqual(readCheckSize('8Ei'), '8Ei');
    expectThrow(() => readCheckSize('\ufeff20Gi'), /U\+FEFF/);
    expectThrow(() => readCheckSize('20Gi\n'), /JSON escape sequence/);
    expectThrow(() => readCheckSize('"20Gi"'), /JSON escape sequence/);
    // A patch's JSON is re-encoded by Go's encoding/json, which escapes these two: the API server refuses them.
    expectThrow(
      () => readCheckSize('\u202820Gi'),
      /the size "\\u202820Gi" contains a JSON escape sequence/,
    );
    expectThrow(() => readCheckSize('20Gi\u2029'), /JSON escape sequence/);
  });

  it('reports the decision with every finding and the sizes', () => {
    const claim = pvc(ROOT, {
      provisioner: 'nfs.csi.k8s.io',
      className: 'nfs-csi',
      volumeMode: 'Filesystem',
    });
    const caches = memoryCaches({ ...state, pvcs: [claim] }) as AdmissionCaches;
    const result = checkResize(claim, '20Gi', caches, resolveAdmissionOptions());
    assert.strictEqual(result.pvc, `default/${ROOT}`);
    assert.strictEqual(result.from, '10Gi');
    assert.strictEqual(result.to, '20Gi');
    assert.isFalse(result.allowed);
    assert.strictEqual(result.decision, 'gate-missing');
    assert.deepStrictEqual(
      result.findings.filter((f) => f.outcome === 'refuse').map((f) => f.decision),
      ['gate-missing', 'provisioner-not-validated'],
    );
  });

  it("a PVC whose class only the beta storage-class annotation names: that class's provisioner is judged too, whatever the provisioner annotation says", () => {
    // The API server reads the PVC's class from that annotation (GetPersistentVolumeClaimClass);
    // Harvester's rule reads spec.storageClassName, which is empty, so only the provisioner
    // annotation would be judged, and it was rewritten to a validated driver in an earlier update.
    const annotations = {
      'volume.beta.kubernetes.io/storage-class': 'nfs-csi',
      'volume.beta.kubernetes.io/storage-provisioner': 'topolvm.io',
    };
    const claim = pvc(ROOT, { annotations, volumeMode: 'Filesystem' });
    const classless = { ...claim, spec: { ...claim.spec, storageClassName: undefined } };
    const caches = memoryCaches({
      ...state,
      kubeVirts: [kubeVirt()],
      settings: [harvesterSetting('{"topolvm.io":true}')],
      pvcs: [classless],
    }) as AdmissionCaches;
    const result = checkResize(classless, '20Gi', caches, resolveAdmissionOptions());
    assert.isFalse(result.allowed, result.message);
    assert.strictEqual(result.decision, 'provisioner-not-validated');
    assert.match(
      result.message,
      /Provisioner nfs\.csi\.k8s\.io is not validated .*names provisioner topolvm\.io, but nfs\.csi\.k8s\.io is named by its StorageClass/,
    );
    // Both validated: allowed, and the finding names both.
    const validated = memoryCaches({
      ...state,
      kubeVirts: [kubeVirt()],
      settings: [harvesterSetting('{"topolvm.io":true,"nfs.csi.k8s.io":true}')],
      pvcs: [classless],
    }) as AdmissionCaches;
    assert.isTrue(checkResize(classless, '20Gi', validated, resolveAdmissionOptions()).allowed);
  });

  it('a size that does not grow is nothing to judge', () => {
    const claim = pvc(ROOT);
    const result = checkResize(
      claim,
      '10Gi',
      memoryCaches({ ...state, pvcs: [claim] }) as AdmissionCaches,
      resolveAdmissionOptions(),
    );
    assert.isTrue(result.allowed);
    assert.strictEqual(result.decision, 'not-resize');
    assert.strictEqual(result.findings[0]?.check, 'api-server');
  });

  it('a shrink below the capacity is refused as the API server refuses it (not "allowed")', () => {
    const claim = pvc(ROOT);
    const result = checkResize(
      claim,
      '5Gi',
      memoryCaches({ ...state, pvcs: [claim] }) as AdmissionCaches,
      resolveAdmissionOptions(),
    );
    assert.isFalse(result.allowed);
    assert.strictEqual(result.code, 422);
    assert.strictEqual(result.reason, 'Invalid');
    assert.strictEqual(result.decision, 'api-below-capacity');
  });

  it('a StorageClass without allowVolumeExpansion: refused 403 even where the webhook would allow (stopped VM)', () => {
    const claim = pvc(ROOT);
    const noExpansion = { ...longhornImageClass(), allowVolumeExpansion: false };
    const caches = memoryCaches({
      ...state,
      storageClasses: [noExpansion],
      vms: [vm('vm1', { status: 'Stopped' })],
      pvcs: [claim],
    }) as AdmissionCaches;
    const result = checkResize(claim, '20Gi', caches, resolveAdmissionOptions());
    assert.isFalse(result.allowed);
    assert.strictEqual(result.code, 403);
    assert.strictEqual(result.reason, 'Forbidden');
    assert.strictEqual(result.decision, 'api-expansion-not-allowed');
    // The webhook's own findings are still listed after the API server's.
    assert.ok(
      result.findings.some((f) => f.check === 'vm' && f.decision === 'allowed-offline'),
      JSON.stringify(result.findings),
    );
  });

  it('allowed once the gate is on', () => {
    const claim = pvc(ROOT);
    const caches = memoryCaches({
      ...state,
      kubeVirts: [kubeVirt()],
      pvcs: [claim],
    }) as AdmissionCaches;
    const result = checkResize(claim, '20Gi', caches, resolveAdmissionOptions());
    assert.isTrue(result.allowed);
    assert.strictEqual(result.decision, 'allowed');
    assert.ok(result.findings.every((f) => f.outcome === 'pass'));
  });
});
