import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  GROW_GUEST_FILESYSTEM_ANNOTATION,
  GUEST_PROBE_ANNOTATION,
  type Namespace,
  type VirtualMachine,
} from '../../../src/model/index.js';
import { leanNamespace, leanVm } from '../../../src/model/lean-objects.js';
import {
  guestGrowthOptIn,
  type GuestGrowthOptIn,
} from '../../../src/vmwatcher/guest-growth-opt-in.js';
import { vm } from '../../support/webhook/admission-objects.js';

function machine(annotations: Record<string, string>): VirtualMachine {
  const object = vm('vm1');
  object.metadata = {
    ...object.metadata,
    annotations: { ...(object.metadata?.annotations ?? {}), ...annotations },
  };
  return object;
}

function namespace(value: string | undefined): Namespace {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: 'default',
      uid: '5d1c0b7e-0000-4000-8000-00000000000a',
      labels: { 'kubernetes.io/metadata.name': 'default' },
      annotations: {
        'field.cattle.io/projectId': 'c-m-abc:p-xyz',
        ...(value === undefined ? {} : { [GROW_GUEST_FILESYSTEM_ANNOTATION]: value }),
      },
    },
  };
}

const on = (value: string) => ({ [GROW_GUEST_FILESYSTEM_ANNOTATION]: value });

describe('the opt-in to guest filesystem growth', () => {
  const table: Array<{
    name: string;
    enabled?: boolean;
    probed?: boolean;
    vm: Record<string, string>;
    namespace?: string;
    expect: GuestGrowthOptIn;
  }> = [
    { name: 'the VM says "true"', vm: on('true'), expect: { grow: true, by: 'vm' } },
    {
      name: 'the Namespace says "true", the VM nothing',
      vm: {},
      namespace: 'true',
      expect: { grow: true, by: 'namespace' },
    },
    {
      name: 'the VM\'s "false" wins over the Namespace\'s "true"',
      vm: on('false'),
      namespace: 'true',
      expect: { grow: false, why: 'vm-off' },
    },
    {
      name: 'the VM\'s "true" wins over the Namespace\'s "false"',
      vm: on('true'),
      namespace: 'false',
      expect: { grow: true, by: 'vm' },
    },
    { name: 'nobody asks', vm: {}, expect: { grow: false, why: 'not-asked' } },
    {
      name: 'the Namespace says "false"',
      vm: {},
      namespace: 'false',
      expect: { grow: false, why: 'not-asked' },
    },
    {
      name: 'a value other than "true" is no opt-in ("yes")',
      vm: on('yes'),
      namespace: 'True',
      expect: { grow: false, why: 'not-asked' },
    },
    {
      name: 'the cluster-wide switch off: never, whatever the annotations',
      enabled: false,
      vm: on('true'),
      namespace: 'true',
      expect: { grow: false, why: 'off' },
    },
    {
      name: "no guest probe sees the VM's namespace",
      probed: false,
      vm: on('true'),
      expect: { grow: false, why: 'no-probe' },
    },
    {
      name: 'the VM opts out of the guest probe (growth needs its agent)',
      vm: { ...on('true'), [GUEST_PROBE_ANNOTATION]: 'off' },
      expect: { grow: false, why: 'no-probe' },
    },
  ];
  for (const row of table)
    it(row.name, () => {
      const decide = (v: VirtualMachine, n: Namespace) =>
        guestGrowthOptIn({
          enabled: row.enabled ?? true,
          probed: row.probed ?? true,
          vm: v,
          namespace: n,
        });
      const full = { vm: machine(row.vm), namespace: namespace(row.namespace) };
      assert.deepStrictEqual(decide(full.vm, full.namespace), row.expect);
      // The tracker caches lean objects: the annotations survive the projection.
      assert.deepStrictEqual(decide(leanVm(full.vm), leanNamespace(full.namespace)), row.expect);
    });

  it('keeps nothing of a Namespace but its name and the opt-in annotation', () => {
    const lean = leanNamespace(namespace('true'));
    assert.deepStrictEqual(lean.metadata?.annotations, on('true'));
    assert.strictEqual(lean.metadata?.name, 'default');
    assert.isUndefined(lean.metadata?.labels);
    assert.isUndefined(leanNamespace(namespace(undefined)).metadata?.annotations);
  });

  it('counts a VM without its Namespace cached as not asked', () => {
    assert.deepStrictEqual(
      guestGrowthOptIn({ enabled: true, probed: true, vm: machine({}), namespace: undefined }),
      { grow: false, why: 'not-asked' },
    );
  });
});
