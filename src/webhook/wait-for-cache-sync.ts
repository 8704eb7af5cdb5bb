import { continueUnlessAborted } from './continue-unless-aborted.js';
import type { StartedCaches } from './started-caches.js';
import { waitFor } from './wait-for.js';
import { WebhookError } from './webhook-error.js';

/**
 * Before voe serve --dev registers: waits up to timeoutMs for the caches to sync, or fails with
 * WEBHOOK_REGISTRATION_FAILED naming those that never listed.
 */
export async function waitForCacheSync(
  started: StartedCaches<unknown>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const synced = await waitFor(() => started.ready(), timeoutMs, signal);
  continueUnlessAborted(signal);
  if (!synced) {
    const unsynced = started.unsynced();
    throw new WebhookError(
      'WEBHOOK_REGISTRATION_FAILED',
      `The informer caches did not sync within ${Math.round(timeoutMs / 1000)} s${unsynced.length ? `: ${unsynced.join(', ')} never listed` : ''}; ` +
        "the webhook was not registered. The log says why ('informer list/watch failed', e.g. 403 Forbidden: check RBAC for get/list/watch).",
    );
  }
}
