import type { Cache, IndexFunction } from './cache.js';

interface Named { metadata?: { name?: string; namespace?: string } }

/**
 * A Cache over objects held in memory: used by `voe check` (filled from list calls) and by
 * tests. Indexes are computed at insert time, as an informer's indexer does.
 */
export class MemoryCache<T extends Named> implements Cache<T> {
  readonly #objects = new Map<string, T>();
  readonly #indexers: Record<string, IndexFunction<T>>;
  #synced: boolean;

  constructor(objects: Iterable<T> = [], options: { indexers?: Record<string, IndexFunction<T>>; synced?: boolean } = {}) {
    this.#indexers = options.indexers ?? {};
    this.#synced = options.synced ?? true;
    for (const object of objects) this.set(object);
  }

  static key(namespace: string | undefined, name: string): string {
    return namespace ? `${namespace}/${name}` : name;
  }

  set(object: T): void {
    this.#objects.set(MemoryCache.key(object.metadata?.namespace, object.metadata?.name ?? ''), object);
  }

  delete(namespace: string | undefined, name: string): void {
    this.#objects.delete(MemoryCache.key(namespace, name));
  }

  setSynced(synced: boolean): void {
    this.#synced = synced;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.#objects.get(MemoryCache.key(namespace, name));
  }

  list(namespace?: string): T[] {
    const all = [...this.#objects.values()];
    return namespace === undefined ? all : all.filter((object) => object.metadata?.namespace === namespace);
  }

  byIndex(index: string, key: string): T[] {
    const indexer = this.#indexers[index];
    if (!indexer) throw new Error(`MemoryCache: no index named "${index}"`);
    return this.list().filter((object) => indexer(object).includes(key));
  }

  get hasSynced(): boolean {
    return this.#synced;
  }
}
