/**
 * The read side of an informer cache, as the admission code needs it. Kept minimal so the
 * src/kube Informer satisfies it as is (get, list, byIndex, hasSynced). Cluster-scoped
 * objects use namespace undefined.
 */
export interface Cache<T> {
  get(namespace: string | undefined, name: string): T | undefined;
  list(namespace?: string): T[];
  /** Objects whose index function returned `key` for index `index`. */
  byIndex(index: string, key: string): T[];
  /** True once the initial list has been loaded. */
  readonly hasSynced: boolean;
  /**
   * Set while a cache that had synced does not follow the API server (an informer whose list or
   * watch failed since its last list that succeeded): since when (ms since the epoch) and why.
   * Absent or undefined: it follows.
   */
  readonly outOfSync?: { since: number; why: string } | undefined;
  /** False while the cluster does not serve the resource (an informer of a missing CRD); absent means served. */
  readonly served?: boolean;
}

/** An index function: the keys an object is listed under. */
export type IndexFunction<T> = (object: T) => string[];
