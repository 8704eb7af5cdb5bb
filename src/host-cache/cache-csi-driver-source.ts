import type { Cache } from './cache.js';
import type { CsiDriverSource } from '../admission/index.js';
import type { CsiDriver } from '../model/index.js';

/** The production CsiDriverSource over a (cluster-scoped) CSIDriver cache. */
export function createCacheCsiDriverSource(cache: Cache<CsiDriver>): CsiDriverSource {
  return { synced: () => cache.hasSynced, getCsiDriver: (name) => cache.get(undefined, name) };
}
