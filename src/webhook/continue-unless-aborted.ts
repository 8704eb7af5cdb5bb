import { WebhookError } from './webhook-error.js';

/**
 * Between the steps of serveWebhook's start-up: throws WEBHOOK_START_ABORTED once `signal` aborted
 * (serveWebhook then undoes what was done).
 */
export function continueUnlessAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new WebhookError(
      'WEBHOOK_START_ABORTED',
      'The webhook was stopped while starting; what the start-up had changed was undone.',
    );
  }
}
