import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { KubernetesObject } from '@kubernetes/client-node';
import { IndexedStore } from '../../../src/kube/index.js';
import { expectThrow } from '../../support/expect-error.js';

const pod = (namespace: string | undefined, name: string, node: string): KubernetesObject => ({
  metadata: { name, ...(namespace ? { namespace } : {}), labels: { node } },
});
const byNode = (obj: KubernetesObject): string[] => [obj.metadata?.labels?.node ?? ''];

describe('IndexedStore', () => {
  it('keeps objects by key, by namespace and by index through puts and removes', () => {
    const store = new IndexedStore<KubernetesObject>();
    store.put('a/p1', pod('a', 'p1', 'n1'));
    store.addIndex('node', byNode);
    store.put('b/p2', pod('b', 'p2', 'n1'));
    store.put('node-x', pod(undefined, 'node-x', 'n2'));
    assert.deepStrictEqual(
      store.byIndex('node', 'n1').map((o) => o.metadata?.name),
      ['p1', 'p2'],
    );
    assert.deepStrictEqual(
      store.list('').map((o) => o.metadata?.name),
      ['node-x'],
    );
    const old = store.put('a/p1', pod('a', 'p1', 'n2'));
    assert.strictEqual(old?.metadata?.labels?.node, 'n1');
    assert.deepStrictEqual(
      store.byIndex('node', 'n2').map((o) => o.metadata?.name),
      ['node-x', 'p1'],
    );
    assert.strictEqual(store.remove('b/p2')?.metadata?.name, 'p2');
    assert.isUndefined(store.remove('b/p2'));
    assert.deepStrictEqual(store.byIndex('node', 'n1'), []);
    assert.deepStrictEqual(store.list('b'), []);
    assert.strictEqual(store.size, 2);
    assert.deepStrictEqual(store.keys(), ['a/p1', 'node-x']);
    assert.isTrue(store.hasIndex('node'));
    assert.deepStrictEqual(store.byIndex('other', 'n1'), []);
  });

  it('an index function that throws: told to onIndexError and left out, else thrown', () => {
    const thrower = (): string[] => {
      throw new Error('bad index');
    };
    const told: string[] = [];
    const lenient = new IndexedStore<KubernetesObject>({
      onIndexError: (_err, key) => told.push(key),
    });
    lenient.addIndex('bad', thrower);
    lenient.put('a/p1', pod('a', 'p1', 'n1'));
    assert.deepStrictEqual(told, ['a/p1']);
    assert.strictEqual(lenient.get('a/p1')?.metadata?.name, 'p1');
    const strict = new IndexedStore<KubernetesObject>();
    strict.addIndex('bad', thrower);
    expectThrow(() => strict.put('a/p1', pod('a', 'p1', 'n1')), /bad index/);
  });
});
