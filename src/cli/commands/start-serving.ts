import {
  serveWebhook,
  WebhookError,
  type ServeWebhookOptions,
  type ServingWebhook,
} from '../../webhook/index.js';
import type { StopRequests } from '../stop-requests.js';
import { exitSoon } from './exit-soon.js';

/**
 * Starts the webhook and says where it answers (on standard error); undefined when it was stopped
 * during start-up (serveWebhook has undone what it did).
 */
export async function startServing<C>(
  options: ServeWebhookOptions<C>,
  stops: StopRequests,
): Promise<ServingWebhook | undefined> {
  let serving: ServingWebhook;
  try {
    serving = await serveWebhook(options);
  } catch (error) {
    // Stopped during start-up: serveWebhook has undone what it did (else it threw WEBHOOK_CLEANUP_FAILED).
    if (error instanceof WebhookError && error.code === 'WEBHOOK_START_ABORTED') return undefined;
    if (stops.signal.aborted) exitSoon();
    throw error;
  }
  process.stderr.write(
    `voe serve: webhooks at ${serving.url}${serving.configurationName ? ` (registered ValidatingWebhookConfiguration ${serving.configurationName}; SIGINT/SIGTERM/SIGHUP removes it)` : ''}\n`,
  );
  return serving;
}
