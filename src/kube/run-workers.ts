import type { Logger } from '../log/index.js';
import type { WorkQueue } from './work-queue.js';

/** What a worker says about a key it processed. */
export type WorkResult =
  | { readonly kind: 'ok' }
  | { readonly kind: 'retry' }
  | { readonly kind: 'retryAfter'; readonly delayMs: number };

/** Done: the failure history of the key is forgotten. */
export const ok = (): WorkResult => ({ kind: 'ok' });
/** Try again after the key's per-item exponential backoff. */
export const retry = (): WorkResult => ({ kind: 'retry' });
/** Try again after exactly `delayMs` (backoff history is reset: the caller chose the delay). */
export const retryAfter = (delayMs: number): WorkResult => ({ kind: 'retryAfter', delayMs });

export type WorkHandler<K> = (key: K) => Promise<WorkResult | void> | WorkResult | void;

export interface RunWorkersOptions {
  logger?: Logger;
}

/**
 * Runs `n` workers over `queue` until it is shut down and drained. A handler returning nothing
 * or ok() forgets the key; retry() re-adds it rate-limited; retryAfter(ms) re-adds it after ms;
 * a throw is logged and re-added rate-limited. Resolves when every worker has exited.
 */
export async function runWorkers<K>(
  queue: WorkQueue<K>,
  n: number,
  handler: WorkHandler<K>,
  options: RunWorkersOptions = {},
): Promise<void> {
  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        const result = (await handler(key)) ?? ok();
        switch (result.kind) {
          case 'ok':
            queue.forget(key);
            break;
          case 'retry':
            queue.addRateLimited(key);
            break;
          case 'retryAfter':
            queue.forget(key);
            queue.addAfter(key, result.delayMs);
            break;
        }
      } catch (err) {
        const delayMs = queue.addRateLimited(key);
        options.logger?.warn(
          { err, key: String(key), retryInMs: delayMs, failures: queue.numRequeues(key) },
          'work item failed; retrying with backoff',
        );
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, n) }, worker));
}
