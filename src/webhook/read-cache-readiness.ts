import type { Logger } from '../log/index.js';
import type { CacheStatus } from './readiness-answer.js';

/**
 * Asks the caches whether they are synced and what /readyz names; a check that throws counts as
 * not ready (logged as 'readiness check failed').
 */
export function readCacheReadiness(
  caches: { ready: () => boolean; cacheStatus?: () => CacheStatus },
  log: Logger,
): { cachesReady: boolean; status: CacheStatus } {
  let cachesReady = false;
  let status: CacheStatus = {};
  try {
    cachesReady = caches.ready() === true;
    status = caches.cacheStatus?.() ?? {};
  } catch (error) {
    log.warn(
      { error: error instanceof Error ? error.message : String(error) },
      'readiness check failed',
    );
  }
  return { cachesReady, status };
}
