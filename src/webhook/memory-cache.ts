import { KubeError, KubeErrorCode } from '../kube/index.js';
import type { Cache, IndexFunction } from './cache.js';

interface Named {
  metadata?: { name?: string; namespace?: string };
}

/**
 * A Cache over objects held in memory: used by `voe check` (filled from list calls) and by
 * tests. Index keys are computed when an object is set, as an informer's indexer does.
 */
export class MemoryCache<T extends Named> implements Cache<T> {
  readonly #objects = new Map<string, T>();
  readonly #indexers: Record<string, IndexFunction<T>>;
  /** index name -> index key -> object keys */
  readonly #indexes = new Map<string, Map<string, Set<string>>>();
  /** object key -> index name -> its index keys */
  readonly #indexKeysOf = new Map<string, Map<string, string[]>>();
  #synced: boolean;
  #outOfSync: { since: number; why: string } | undefined;

  constructor(
    objects: Iterable<T> = [],
    options: { indexers?: Record<string, IndexFunction<T>>; synced?: boolean } = {},
  ) {
    this.#indexers = options.indexers ?? {};
    for (const name of Object.keys(this.#indexers)) this.#indexes.set(name, new Map());
    this.#synced = options.synced ?? true;
    for (const object of objects) this.set(object);
  }

  static key(namespace: string | undefined, name: string): string {
    return namespace ? `${namespace}/${name}` : name;
  }

  set(object: T): void {
    const key = MemoryCache.key(object.metadata?.namespace, object.metadata?.name ?? '');
    this.#unindex(key);
    this.#objects.set(key, object);
    const keysOf = new Map<string, string[]>();
    for (const [name, indexer] of Object.entries(this.#indexers)) {
      const indexKeys = indexer(object);
      keysOf.set(name, indexKeys);
      const index = this.#indexes.get(name) as Map<string, Set<string>>;
      for (const indexKey of indexKeys) {
        let members = index.get(indexKey);
        if (!members) index.set(indexKey, (members = new Set()));
        members.add(key);
      }
    }
    this.#indexKeysOf.set(key, keysOf);
  }

  delete(namespace: string | undefined, name: string): void {
    const key = MemoryCache.key(namespace, name);
    this.#unindex(key);
    this.#objects.delete(key);
  }

  #unindex(key: string): void {
    for (const [name, indexKeys] of this.#indexKeysOf.get(key) ?? []) {
      const index = this.#indexes.get(name) as Map<string, Set<string>>;
      for (const indexKey of indexKeys) {
        const members = index.get(indexKey);
        members?.delete(key);
        if (members?.size === 0) index.delete(indexKey);
      }
    }
    this.#indexKeysOf.delete(key);
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
    return this.#objects.get(MemoryCache.key(namespace, name));
  }

  list(namespace?: string): T[] {
    const all = [...this.#objects.values()];
    return namespace === undefined
      ? all
      : all.filter((object) => object.metadata?.namespace === namespace);
  }

  byIndex(index: string, key: string): T[] {
    const members = this.#indexes.get(index);
    if (!members)
      throw new KubeError(
        KubeErrorCode.InformerUnknownIndex,
        `no index named ${JSON.stringify(index)}; give it in the MemoryCache's indexers`,
        { details: { name: index } },
      );
    return [...(members.get(key) ?? [])].map((objectKey) => this.#objects.get(objectKey) as T);
  }

  get hasSynced(): boolean {
    return this.#synced;
  }
}
