import type { KubernetesObject } from '@kubernetes/client-node';
import { IndexedStore, KubeError, KubeErrorCode, keyOf } from '../kube/index.js';
import type { Cache, IndexFunction } from './cache.js';

interface Named {
  metadata?: { name?: string; namespace?: string };
}

/**
 * A Cache over objects held in memory: used by `voe check` (filled from list calls) and by
 * tests. Held in the informer's IndexedStore: index keys are computed when an object is set.
 */
export class MemoryCache<T extends Named> implements Cache<T> {
  readonly #store = new IndexedStore<T & KubernetesObject>();
  #synced: boolean;
  #outOfSync: { since: number; why: string } | undefined;

  constructor(
    objects: Iterable<T> = [],
    options: { indexers?: Record<string, IndexFunction<T>>; synced?: boolean } = {},
  ) {
    for (const [name, indexer] of Object.entries(options.indexers ?? {}))
      this.#store.addIndex(name, indexer);
    this.#synced = options.synced ?? true;
    for (const object of objects) this.set(object);
  }

  static key(namespace: string | undefined, name: string): string {
    return keyOf(namespace, name);
  }

  set(object: T): void {
    this.#store.put(
      MemoryCache.key(object.metadata?.namespace, object.metadata?.name ?? ''),
      object,
    );
  }

  delete(namespace: string | undefined, name: string): void {
    this.#store.remove(MemoryCache.key(namespace, name));
  }

  setSynced(synced: boolean): void {
    this.#synced = synced;
  }

  /** As an informer whose list or watch failed (`state`), or that listed again (undefined). */
  setOutOfSync(state: { since: number; why: string } | undefined): void {
    this.#outOfSync = state;
  }

  get outOfSync(): { since: number; why: string } | undefined {
    return this.#outOfSync;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.#store.get(MemoryCache.key(namespace, name));
  }

  list(namespace?: string): T[] {
    const all = this.#store.list();
    return namespace === undefined
      ? all
      : all.filter((object) => object.metadata?.namespace === namespace);
  }

  byIndex(index: string, key: string): T[] {
    if (!this.#store.hasIndex(index))
      throw new KubeError(
        KubeErrorCode.InformerUnknownIndex,
        `no index named ${JSON.stringify(index)}; give it in the MemoryCache's indexers`,
        { details: { name: index } },
      );
    return this.#store.byIndex(index, key);
  }

  get hasSynced(): boolean {
    return this.#synced;
  }
}
