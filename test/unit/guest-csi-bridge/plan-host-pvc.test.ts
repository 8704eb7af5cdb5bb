import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  CSI_NAME_ANNOTATION,
  incompatibility,
  planHostPvc,
  VOLUME_FOR_VM_ANNOTATION,
  type PlanInput,
} from '../../../src/guest-csi-bridge/controller/plan-host-pvc.js';
import { hostPvcName } from '../../../src/guest-csi-bridge/csi/host-pvc-name.js';
import { CsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import { hasCode } from '../../support/guest-csi-bridge/has-code.js';
import { expectThrow } from '../../support/expect-error.js';

const Mi = 1024n * 1024n;
const Gi = 1024n * Mi;

const input = (overrides: Partial<PlanInput> = {}): PlanInput => ({
  name: 'pvc-0b6f3c1e-5f0e-4d55-9f8e-2c1b1a7e1e11',
  capacity: { requiredBytes: 10n * Gi, limitBytes: 0n },
  parameters: {},
  defaultHostStorageClass: undefined,
  ...overrides,
});

describe('planHostPvc', () => {
  const sizes: Array<[string, bigint, bigint, string, bigint]> = [
    ['aligned request', 10n * Gi, 0n, '10Gi', 10n * Gi],
    [
      'rounded up to 2 MiB, capacity answers the request',
      10n * Gi + 1n,
      0n,
      '10242Mi',
      10n * Gi + 1n,
    ],
    ['no size: 10 MiB', 0n, 0n, '10Mi', 10n * Mi],
    ['below the minimum: 10 MiB', 1n * Mi, 0n, '10Mi', 10n * Mi],
    ['limit equal to the aligned request', 10n * Gi, 10n * Gi, '10Gi', 10n * Gi],
  ];
  for (const [name, required, limit, storage, capacity] of sizes) {
    it(name, () => {
      const plan = planHostPvc(input({ capacity: { requiredBytes: required, limitBytes: limit } }));
      assert.strictEqual(plan.body.spec?.resources?.requests?.['storage'], storage);
      assert.strictEqual(plan.capacityBytes, capacity);
    });
  }

  it('a limit below the rounded size is OUT_OF_RANGE', () => {
    expectThrow(
      () => planHostPvc(input({ capacity: { requiredBytes: 5n * Mi, limitBytes: 5n * Mi } })),
      hasCode('CSI_CAPACITY_OUT_OF_RANGE'),
    );
  });

  it('Harvester-shaped host PVC: RWX Block, named after the request, on the requested class', () => {
    const plan = planHostPvc(input({ parameters: { hostStorageClass: 'longhorn-ssd' } }));
    assert.deepStrictEqual(plan.body, {
      metadata: { name: 'pvc-0b6f3c1e-5f0e-4d55-9f8e-2c1b1a7e1e11' },
      spec: {
        accessModes: ['ReadWriteMany'],
        volumeMode: 'Block',
        resources: { requests: { storage: '10Gi' } },
        storageClassName: 'longhorn-ssd',
      },
    });
    assert.strictEqual(plan.volumeId, 'pvc-0b6f3c1e-5f0e-4d55-9f8e-2c1b1a7e1e11');
  });

  it('storage class: parameter, else the driver flag, else the host default (none written)', () => {
    assert.strictEqual(
      planHostPvc(input({ defaultHostStorageClass: 'flag-class' })).body.spec?.storageClassName,
      'flag-class',
    );
    assert.isUndefined(planHostPvc(input()).body.spec?.storageClassName);
  });

  it('hostVolumeMode filesystem: Filesystem mode, annotated for non-Longhorn storage', () => {
    const nfs = planHostPvc(
      input({ parameters: { hostVolumeMode: 'filesystem' }, hostProvisioner: 'nfs.csi.k8s.io' }),
    );
    assert.strictEqual(nfs.body.spec?.volumeMode, 'Filesystem');
    assert.strictEqual(nfs.body.metadata?.annotations?.[VOLUME_FOR_VM_ANNOTATION], 'true');
    const longhorn = planHostPvc(
      input({
        parameters: { hostVolumeMode: 'Filesystem' },
        hostProvisioner: 'driver.longhorn.io',
      }),
    );
    assert.strictEqual(longhorn.body.spec?.volumeMode, 'Filesystem');
    assert.isUndefined(longhorn.body.metadata?.annotations);
  });

  it('a name that is no DNS label gets a derived id and the name in an annotation', () => {
    const name = 'sanity-controller-create-twice-1A2B3C4D-5E6F7A8B';
    const plan = planHostPvc(input({ name }));
    assert.strictEqual(plan.volumeId, hostPvcName(name));
    assert.notStrictEqual(plan.volumeId, name);
    assert.strictEqual(plan.body.metadata?.annotations?.[CSI_NAME_ANNOTATION], name);
  });
});

describe('incompatibility (CreateVolume retried or repeated with another request)', () => {
  const base = input({ capacity: { requiredBytes: 10n * Gi, limitBytes: 10n * Gi } });
  const plan = planHostPvc(base);
  const existing = { ...plan.body, status: { phase: 'Bound' } };

  it('the same request: compatible', () => {
    assert.isUndefined(incompatibility(existing, plan, base));
  });
  it('a larger size: ALREADY_EXISTS reason', () => {
    const bigger = input({ capacity: { requiredBytes: 20n * Gi, limitBytes: 20n * Gi } });
    assert.match(incompatibility(existing, planHostPvc(bigger), bigger) ?? '', /less than/);
  });
  it('a smaller limit than the existing request', () => {
    const smaller = input({ capacity: { requiredBytes: 5n * Gi, limitBytes: 5n * Gi } });
    assert.match(incompatibility(existing, planHostPvc(smaller), smaller) ?? '', /above the limit/);
  });
  it('another volume mode', () => {
    const fs = input({ parameters: { hostVolumeMode: 'filesystem' } });
    assert.match(incompatibility(existing, planHostPvc(fs), fs) ?? '', /Block mode/);
  });
  it('another host StorageClass: ALREADY_EXISTS reason', () => {
    const onNfs = input({
      capacity: { requiredBytes: 10n * Gi, limitBytes: 10n * Gi },
      parameters: { hostStorageClass: 'nfs' },
    });
    const onLonghorn = input({
      capacity: { requiredBytes: 10n * Gi, limitBytes: 10n * Gi },
      parameters: { hostStorageClass: 'longhorn' },
    });
    const made = { ...planHostPvc(onLonghorn).body, status: { phase: 'Bound' } };
    assert.match(
      incompatibility(made, planHostPvc(onNfs), onNfs) ?? '',
      /on the host StorageClass longhorn, this request makes it on nfs/,
    );
    assert.isUndefined(incompatibility(made, planHostPvc(onLonghorn), onLonghorn));
  });
  it('a derived id made for another name', () => {
    const name = 'Some Name';
    const named = input({ name });
    const namedPlan = planHostPvc(named);
    const other = {
      ...namedPlan.body,
      metadata: { name: namedPlan.volumeId, annotations: { [CSI_NAME_ANNOTATION]: 'other' } },
    };
    assert.match(incompatibility(other, namedPlan, named) ?? '', /not made for/);
    assert.isUndefined(incompatibility(namedPlan.body, namedPlan, named));
  });
  it('errors are CsiErrors', () => {
    assert.instanceOf(
      expectThrow(() => planHostPvc(input({ capacity: { requiredBytes: 1n, limitBytes: 1n } }))),
      CsiError,
    );
  });
});
