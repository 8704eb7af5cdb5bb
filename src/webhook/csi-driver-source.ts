import type { Cache } from './cache.js';
import type { CsiDriver } from './kube-objects.js';

/** Where the Setting validator looks up CSIDriver objects. */
export interface CsiDriverSource {
  synced(): boolean;
  getCsiDriver(name: string): CsiDriver | undefined;
}

/** The production CsiDriverSource over a (cluster-scoped) CSIDriver cache. */
export function createCacheCsiDriverSource(cache: Cache<CsiDriver>): CsiDriverSource {
  return { synced: () => cache.hasSynced, getCsiDriver: (name) => cache.get(undefined, name) };
}
