import type { ResizeSnapshotSource } from '../resize-snapshot-source.js';
import { internalErrorVerdict, NOT_SYNCED_MESSAGE } from './to-verdict.js';
import type { AdmissionVerdict } from './validator.js';
import { Decision } from '../decision.js';

/**
 * The refusal (500) of a request that needs the caches while `source.synced()` is false: caches
 * that had synced but do not follow the API server now (their list or watch failed: RBAC revoked,
 * the API server restarted, a broken watch) are named with since when and why
 * (`cache-out-of-sync`), so nothing is judged from a state that may be stale; caches that never
 * listed get `cache-not-synced`.
 */
export function notSyncedVerdict(
  source: Pick<ResizeSnapshotSource, 'outOfSync'>,
): AdmissionVerdict {
  const stale = source.outOfSync();
  if (stale.length === 0) return internalErrorVerdict(Decision.CacheNotSynced, NOT_SYNCED_MESSAGE);
  const one = stale.length === 1;
  return internalErrorVerdict(
    Decision.CacheOutOfSync,
    `internal error: voe's ${one ? 'cache' : 'caches'} of ${stale.join('; ')} ${one ? 'does' : 'do'} not follow the API server now ` +
      `(${one ? 'its' : 'their'} list or watch failed), so this request is not judged from ${one ? 'it' : 'them'}; ` +
      'retry in a moment: voe lists again by itself, and its log and /readyz say more.',
  );
}
