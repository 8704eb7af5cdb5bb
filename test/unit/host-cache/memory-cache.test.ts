import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { isKubeError } from '../../../src/kube/index.js';
import type { VirtualMachine } from '../../../src/model/index.js';
import { admissionIndexers } from '../../../src/host-cache/cache-snapshot-source.js';
import { MemoryCache } from '../../../src/host-cache/memory-cache.js';
import { vm } from '../../support/webhook/admission-objects.js';

describe('MemoryCache', () => {
  const names = (objects: VirtualMachine[]) =>
    objects.map((object) => object.metadata?.name).sort();

  it('gets, lists by namespace and finds by index', () => {
    const cache = new MemoryCache([vm('a'), vm('b', { namespace: 'other' })], {
      indexers: admissionIndexers.vms,
    });
    assert.strictEqual(cache.get('default', 'a')?.metadata?.name, 'a');
    assert.isUndefined(cache.get('other', 'a'));
    assert.deepStrictEqual(names(cache.list('other')), ['b']);
    assert.deepStrictEqual(names(cache.list()), ['a', 'b']);
    assert.deepStrictEqual(names(cache.byIndex('vms-by-pvc', 'default/a-disk-0-kq8zt')), ['a']);
    assert.deepStrictEqual(cache.byIndex('vms-by-pvc', 'default/none'), []);
    expectThrow(
      () => cache.byIndex('nope', 'x'),
      (error: unknown) =>
        isKubeError(error) &&
        error.code === 'KUBE_INFORMER_UNKNOWN_INDEX' &&
        /no index named "nope"/.test(error.message),
    );
  });

  it('re-indexes on update and forgets on delete', () => {
    const cache = new MemoryCache([vm('a')], { indexers: admissionIndexers.vms });
    cache.set(
      vm('a', {
        volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'moved' } }],
        templates: [],
      }),
    );
    assert.deepStrictEqual(cache.byIndex('vms-by-pvc', 'default/a-disk-0-kq8zt'), []);
    assert.deepStrictEqual(names(cache.byIndex('vms-by-pvc', 'default/moved')), ['a']);
    cache.delete('default', 'a');
    assert.deepStrictEqual(cache.byIndex('vms-by-pvc', 'default/moved'), []);
    assert.isUndefined(cache.get('default', 'a'));
  });

  it('keys cluster-scoped objects by name and reports its sync state', () => {
    const cache = new MemoryCache([{ metadata: { name: 'csi-online-expand-validation' } }], {
      synced: false,
    });
    assert.ok(cache.get(undefined, 'csi-online-expand-validation'));
    assert.isFalse(cache.hasSynced);
    cache.setSynced(true);
    assert.isTrue(cache.hasSynced);
  });
});
