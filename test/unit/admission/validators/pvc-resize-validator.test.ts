import { describe, it } from 'mocha';
import { assert } from 'chai';
import { createPvcResizeValidator } from '../../../../src/admission/validators/pvc-resize-validator.js';
import type { AdmissionRequest } from '../../../../src/admission/validators/validator.js';
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
} from '../../../support/webhook/admission-objects.js';
import { memorySource, type ClusterState } from '../../../support/webhook/admission-caches.js';

const ROOT = 'vm1-disk-0-kq8zt';
const claim = pvc(ROOT);

function cluster(overrides: ClusterState = {}): ClusterState {
  return {
    pvcs: [claim],
    storageClasses: [longhornImageClass(), storageClass('nfs-csi', 'nfs.csi.k8s.io')],
    vms: [vm('vm1')],
    kubeVirts: [kubeVirt()],
    settings: [harvesterSetting('')],
    longhornVolumes: [longhornVolume()],
    longhornEngines: [longhornEngine()],
    longhornSettings: [longhornVersion('v1.9.1')],
    ...overrides,
  };
}

function update(
  oldObject: unknown,
  object: unknown,
  extra: Partial<Parameters<typeof admissionRequest>[0]> = {},
): AdmissionRequest {
  return admissionRequest({
    operation: 'UPDATE',
    resource: PVC_RESOURCE,
    kind: PVC_KIND,
    object,
    oldObject,
    name: ROOT,
    namespace: 'default',
    ...extra,
  });
}

describe('pvc-resize validator', () => {
  it('has its name and path', () => {
    const validator = createPvcResizeValidator(memorySource(cluster()));
    assert.strictEqual(validator.name, 'pvc-resize');
    assert.strictEqual(validator.path, '/validate/pvc-resize');
  });

  const untouched: Array<[string, AdmissionRequest]> = [
    [
      'CREATE',
      admissionRequest({
        operation: 'CREATE',
        resource: PVC_RESOURCE,
        kind: PVC_KIND,
        object: claim,
      }),
    ],
    [
      'DELETE',
      admissionRequest({
        operation: 'DELETE',
        resource: PVC_RESOURCE,
        kind: PVC_KIND,
        oldObject: claim,
      }),
    ],
    [
      'UPDATE without a size change (label edit)',
      update(claim, { ...claim, metadata: { ...claim.metadata, labels: { a: 'b' } } }),
    ],
    ['UPDATE that shrinks', update(claim, resized(claim, '5Gi'))],
    [
      'UPDATE of the status subresource',
      update(claim, resized(claim, '20Gi'), { subResource: 'status' }),
    ],
    [
      'UPDATE of another resource',
      update(claim, resized(claim, '20Gi'), {
        resource: { group: '', version: 'v1', resource: 'pods' },
      }),
    ],
  ];
  for (const [name, request] of untouched) {
    it(`${name} is allowed untouched`, async () => {
      const { caches, source, options } = memorySource(cluster());
      caches.pvcs.setSynced(false); // untouched requests never read the caches
      const verdict = await createPvcResizeValidator({ source, options }).validate(request);
      assert.deepStrictEqual(verdict, { allowed: true, decision: 'not-resize' });
    });
  }

  it('allows growing a Longhorn v1 disk of a running VM', async () => {
    const verdict = await createPvcResizeValidator(memorySource(cluster())).validate(
      update(claim, resized(claim, '20Gi')),
    );
    assert.deepStrictEqual(verdict, { allowed: true, decision: 'allowed' });
  });

  it('refuses with 422 Invalid and the PVC_EXPAND message', async () => {
    const verdict = await createPvcResizeValidator(
      memorySource(cluster({ kubeVirts: [kubeVirt({ gates: [] })] })),
    ).validate(update(claim, resized(claim, '20Gi')));
    assert.isFalse(verdict.allowed);
    assert.strictEqual(verdict.code, 422);
    assert.strictEqual(verdict.reason, 'Invalid');
    assert.strictEqual(verdict.decision, 'gate-missing');
    assert.ok(
      verdict.message?.startsWith('PVC_EXPAND: kubevirt ExpandDisks not included in featureGate. '),
    );
  });

  it('allows a smaller request still above status.capacity untouched (recovering from a failed expansion: no more than is pending already), even for a running VM on a provider whose growth it refuses', async () => {
    const nfs = pvc(ROOT, { provisioner: 'nfs.csi.k8s.io', className: 'nfs-csi' });
    // The external-resizer's record of a failed 10Gi -> 100Gi expansion.
    const failed = (storage: string) => ({
      ...resized(nfs, storage),
      status: {
        phase: 'Bound',
        capacity: { storage: '10Gi' },
        allocatedResources: { storage: '100Gi' },
        allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' },
      },
    });
    const source = memorySource(cluster({ pvcs: [failed('100Gi')] }));
    assert.strictEqual(
      (await createPvcResizeValidator(source).validate(update(failed('20Gi'), failed('100Gi'))))
        .decision,
      'provisioner-not-validated',
      'growing it is refused',
    );
    assert.deepStrictEqual(
      await createPvcResizeValidator(source).validate(update(failed('100Gi'), failed('20Gi'))),
      { allowed: true, decision: 'not-resize' },
    );
    assert.deepStrictEqual(
      await createPvcResizeValidator(source).validate(update(failed('100Gi'), failed('10Gi'))),
      { allowed: true, decision: 'not-resize' },
    );
  });

  it("judges any exponent the API server stores (1e102 as 100e100), and refuses one beyond voe's bound with 422, never a 500", async () => {
    const gateless = memorySource(cluster({ kubeVirts: [kubeVirt({ gates: [] })] }));
    for (const size of ['1e102', '100e100', '1e101', '1e999']) {
      assert.deepStrictEqual(
        await createPvcResizeValidator(memorySource(cluster())).validate(
          update(claim, resized(claim, size)),
        ),
        { allowed: true, decision: 'allowed' },
        size,
      );
      assert.strictEqual(
        (await createPvcResizeValidator(gateless).validate(update(claim, resized(claim, size))))
          .decision,
        'gate-missing',
        size,
      );
    }
    for (const size of ['1e1000', `1${'0'.repeat(1000)}`]) {
      const verdict = await createPvcResizeValidator(memorySource(cluster())).validate(
        update(claim, resized(claim, size)),
      );
      assert.strictEqual(verdict.code, 422, size);
      assert.strictEqual(verdict.decision, 'size-out-of-range');
      assert.match(
        verdict.message ?? '',
        /^PVC_EXPAND: the new storage request of PVC default\/vm1-disk-0-kq8zt cannot be judged: .*beyond what voe reads.*"20Gi"/,
      );
      assert.strictEqual(verdict.field, 'spec.resources.requests.storage');
    }
    // Stored beyond the bound, lowered to a size voe reads: no growth.
    assert.deepStrictEqual(
      await createPvcResizeValidator(memorySource(cluster())).validate(
        update(resized(claim, '1e1000'), resized(claim, '20Gi')),
      ),
      { allowed: true, decision: 'not-resize' },
    );
  });

  it('compares sizes as apimachinery stores them: 8Ei -> 9Ei is no growth (both capped at 2^63-1)', async () => {
    const verdict = await createPvcResizeValidator(
      memorySource(cluster({ kubeVirts: [kubeVirt({ gates: [] })] })),
    ).validate(update(resized(claim, '8Ei'), resized(claim, '9Ei')));
    assert.deepStrictEqual(verdict, { allowed: true, decision: 'not-resize' });
  });

  it('refuses with 500 while the caches are not synced', async () => {
    const { caches, source, options } = memorySource(cluster());
    caches.vms.setSynced(false);
    const verdict = await createPvcResizeValidator({ source, options }).validate(
      update(claim, resized(claim, '20Gi')),
    );
    assert.deepStrictEqual(verdict, {
      allowed: false,
      code: 500,
      reason: 'InternalError',
      decision: 'cache-not-synced',
      message: 'internal error: the admission caches are not synced yet; retry in a moment.',
    });
  });

  it('refuses with 500 naming the cache, since when and why, while a cache that had synced does not follow the API server (its list or watch failed)', async () => {
    // vm1 is Stopped in the cache, so a cache taken at its word would allow the resize offline.
    const { caches, source, options } = memorySource(
      cluster({ vms: [vm('vm1', { status: 'Stopped' })] }),
    );
    const validator = createPvcResizeValidator({ source, options });
    assert.strictEqual(
      (await validator.validate(update(claim, resized(claim, '20Gi')))).decision,
      'allowed-offline',
    );
    const since = Date.UTC(2026, 10, 21, 7, 29, 21, 470);
    caches.vms.setOutOfSync({
      since,
      why: '403 Forbidden: virtualmachines.kubevirt.io is forbidden: User "voe" cannot list resource "virtualmachines"',
    });
    assert.isFalse(source.synced());
    assert.deepStrictEqual(await validator.validate(update(claim, resized(claim, '20Gi'))), {
      allowed: false,
      code: 500,
      reason: 'InternalError',
      decision: 'cache-out-of-sync',
      message:
        "internal error: voe's cache of virtualmachines.kubevirt.io (since 2026-11-21T07:29:21.470Z: 403 Forbidden: virtualmachines.kubevirt.io is forbidden: " +
        'User "voe" cannot list resource "virtualmachines") does not follow the API server now (its list or watch failed), so this request is not judged from it; ' +
        'retry in a moment: voe lists again by itself, and its log and /readyz say more.',
    });
    caches.kubeVirts.setOutOfSync({
      since,
      why: 'GET /apis/kubevirt.io/v1/namespaces/harvester-system/kubevirts failed before an answer from the API server (connect ECONNREFUSED)',
    });
    assert.match(
      (await validator.validate(update(claim, resized(claim, '20Gi')))).message ?? '',
      /^internal error: voe's caches of virtualmachines\.kubevirt\.io \(since .*\); kubevirts\.kubevirt\.io \(since .*ECONNREFUSED\)\) do not follow the API server now \(their list or watch failed\), so this request is not judged from them;/,
    );
    // Requests that need no cache are answered as before.
    assert.deepStrictEqual(await validator.validate(update(claim, resized(claim, '10Gi'))), {
      allowed: true,
      decision: 'not-resize',
    });
    caches.vms.setOutOfSync(undefined);
    caches.kubeVirts.setOutOfSync(undefined);
    assert.isTrue(source.synced());
    assert.strictEqual(
      (await validator.validate(update(claim, resized(claim, '20Gi')))).decision,
      'allowed-offline',
    );
  });

  it('refuses with 500 when the Setting is invalid JSON', async () => {
    const verdict = await createPvcResizeValidator(
      memorySource(cluster({ settings: [harvesterSetting('{nope')] })),
    ).validate(update(claim, resized(claim, '20Gi')));
    assert.strictEqual(verdict.code, 500);
    assert.strictEqual(verdict.reason, 'InternalError');
    assert.strictEqual(verdict.decision, 'setting-invalid');
    assert.match(verdict.message ?? '', /^internal error: .*SETTING_INVALID_JSON/);
  });

  it('refuses with 500 when a cache throws', async () => {
    const { source, options } = memorySource(cluster());
    const broken = {
      ...source,
      vmsUsingPvc: () => {
        throw new Error('index vms-by-pvc missing');
      },
    };
    const verdict = await createPvcResizeValidator({ source: broken, options }).validate(
      update(claim, resized(claim, '20Gi')),
    );
    assert.strictEqual(verdict.code, 500);
    assert.strictEqual(verdict.decision, 'internal-error');
    assert.ok(verdict.message?.includes('index vms-by-pvc missing'));
  });

  it('passes the missing-Setting warning through', async () => {
    const verdict = await createPvcResizeValidator(
      memorySource(cluster({ settings: [] })),
    ).validate(update(claim, resized(claim, '20Gi')));
    assert.isTrue(verdict.allowed);
    assert.strictEqual(verdict.warnings?.length, 1);
    assert.ok((verdict.warnings?.[0] ?? '').length <= 120);
  });

  it('never calls anything but the source (reads only caches)', async () => {
    const { source, options } = memorySource(cluster());
    const calls: string[] = [];
    const spy = new Proxy(source, {
      get(target, property) {
        const value = target[property as keyof typeof target];
        return typeof value === 'function'
          ? (...args: unknown[]) => {
              calls.push(String(property));
              return (value as (...a: unknown[]) => unknown)(...args);
            }
          : value;
      },
    });
    await createPvcResizeValidator({ source: spy, options }).validate(
      update(claim, resized(claim, '20Gi')),
    );
    assert.deepStrictEqual([...new Set(calls)].sort(), [
      'getKubeVirt',
      'getLonghornEngines',
      'getLonghornSetting',
      'getLonghornVolume',
      'getSetting',
      'getStorageClass',
      'synced',
      'vmisUsingPvc',
      'vmsUsingPvc',
    ]);
  });
});
