import type { CacheStatus } from './readiness-answer.js';

/**
 * What the webhook's cache gauges read at each scrape: caches not synced (at least 1 while not
 * ready, 1 when the status cannot be read) and caches not read yet (0 when it cannot be read).
 */
export function cacheGauges(caches: { ready: () => boolean; cacheStatus?: () => CacheStatus }): {
  cachesNotSynced: () => number;
  cachesNotRead: () => number;
} {
  return {
    cachesNotSynced: () => {
      try {
        const unsynced = caches.cacheStatus?.().unsynced?.length ?? 0;
        return unsynced > 0 || caches.ready() ? unsynced : 1;
      } catch {
        return 1;
      }
    },
    cachesNotRead: () => {
      try {
        return caches.cacheStatus?.().notRead?.length ?? 0;
      } catch {
        return 0;
      }
    },
  };
}
