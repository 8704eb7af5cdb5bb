import type { Cache } from './cache.js';
import type { CsiDriverSource } from './csi-driver-source.js';
import type { CsiDriver } from './kube-objects.js';

/** The production CsiDriverSource over a (cluster-scoped) CSIDriver cache. */
export function createCacheCsiDriverSource(cache: Cache<CsiDriver>): CsiDriverSource {
  return { synced: () => cache.hasSynced, getCsiDriver: (name) => cache.get(undefined, name) };
}
