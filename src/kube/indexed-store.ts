import type { KubernetesObject } from '@kubernetes/client-node';

/** An index: its function, index key -> object keys, and object key -> its index keys. */
interface Index<T> {
  fn: (obj: T) => string[];
  index: Map<string, Set<string>>;
  keysOf: Map<string, string[]>;
}

/**
 * Objects by key (client-go's MetaNamespaceKey), by namespace, and by secondary indexes kept up
 * to date on every put and remove (client-go's indexer): the informer's cache, and MemoryCache's.
 * An index function that throws leaves the object out of that index when `onIndexError` is given
 * (which is told), else the error ends the put.
 */
export class IndexedStore<T extends KubernetesObject> {
  readonly #objects = new Map<string, T>();
  readonly #byNamespace = new Map<string, Set<string>>();
  readonly #indexes = new Map<string, Index<T>>();
  readonly #onIndexError: ((err: unknown, key: string) => void) | undefined;

  constructor(options: { onIndexError?: (err: unknown, key: string) => void } = {}) {
    this.#onIndexError = options.onIndexError;
  }

  get size(): number {
    return this.#objects.size;
  }

  get(key: string): T | undefined {
    return this.#objects.get(key);
  }

  /** All objects, or those of one namespace ('' for cluster-scoped ones). */
  list(namespace?: string): T[] {
    if (namespace === undefined) return [...this.#objects.values()];
    return [...(this.#byNamespace.get(namespace) ?? [])].map((k) => this.#objects.get(k) as T);
  }

  keys(): string[] {
    return [...this.#objects.keys()];
  }

  /** Adds a secondary index (`fn` returns the index keys of an object); built over the objects held. */
  addIndex(name: string, fn: (obj: T) => string[]): void {
    const idx: Index<T> = { fn, index: new Map(), keysOf: new Map() };
    this.#indexes.set(name, idx);
    for (const [k, obj] of this.#objects) this.#indexOne(idx, k, obj);
  }

  hasIndex(name: string): boolean {
    return this.#indexes.has(name);
  }

  /** Objects whose index function returned `key` for index `name` (none for an unknown index). */
  byIndex(name: string, key: string): T[] {
    const idx = this.#indexes.get(name);
    return [...(idx?.index.get(key) ?? [])].map((k) => this.#objects.get(k) as T);
  }

  /** Holds `obj` under `key`; the object it replaces, if any. */
  put(key: string, obj: T): T | undefined {
    const old = this.#objects.get(key);
    this.#objects.set(key, obj);
    const ns = obj.metadata?.namespace ?? '';
    let s = this.#byNamespace.get(ns);
    if (!s) this.#byNamespace.set(ns, (s = new Set()));
    s.add(key);
    for (const idx of this.#indexes.values()) this.#indexOne(idx, key, obj);
    return old;
  }

  /** Drops the object under `key`; it, if there was one. */
  remove(key: string): T | undefined {
    const old = this.#objects.get(key);
    if (!old) return undefined;
    this.#objects.delete(key);
    const ns = old.metadata?.namespace ?? '';
    const s = this.#byNamespace.get(ns);
    s?.delete(key);
    if (s?.size === 0) this.#byNamespace.delete(ns);
    for (const idx of this.#indexes.values()) this.#indexOne(idx, key, undefined);
    return old;
  }

  #indexOne(idx: Index<T>, key: string, obj: T | undefined): void {
    for (const ik of idx.keysOf.get(key) ?? []) {
      const s = idx.index.get(ik);
      s?.delete(key);
      if (s?.size === 0) idx.index.delete(ik);
    }
    idx.keysOf.delete(key);
    if (obj === undefined) return;
    let keys: string[];
    try {
      keys = [...new Set(idx.fn(obj))];
    } catch (err) {
      if (!this.#onIndexError) throw err;
      this.#onIndexError(err, key);
      return;
    }
    idx.keysOf.set(key, keys);
    for (const ik of keys) {
      let s = idx.index.get(ik);
      if (!s) idx.index.set(ik, (s = new Set()));
      s.add(key);
    }
  }
}
