import type { KubeClientConfig } from '../../kube/index.js';
import type { Logger } from '../../log/index.js';
import { confirmApiServerCalls } from './confirm-api-server-calls.js';
import { continueUnlessAborted } from '../continue-unless-aborted.js';
import { WebhookError } from '../webhook-error.js';

/**
 * After voe serve --dev registered `name`: waits up to timeoutMs for the API server's first call,
 * failing with WEBHOOK_REGISTRATION_FAILED when it never comes, and logs whether it came.
 */
export async function confirmDevRegistration(options: {
  kubeConfig: KubeClientConfig;
  name: string;
  url: string;
  reviewsAnswered: () => Promise<number>;
  settingName: string;
  timeoutMs: number;
  logger: Logger;
  signal: AbortSignal | undefined;
}): Promise<void> {
  const { name, signal, logger: log } = options;
  const check = await confirmApiServerCalls({
    kubeConfig: options.kubeConfig,
    reviewsAnswered: options.reviewsAnswered,
    settingName: options.settingName,
    timeoutMs: options.timeoutMs,
    ...(signal ? { signal } : {}),
  });
  continueUnlessAborted(signal);
  if (check === 'timeout') {
    throw new WebhookError(
      'WEBHOOK_REGISTRATION_FAILED',
      `The API server did not call the webhook at ${options.url} within ${Math.round(options.timeoutMs / 1000)} s of its registration; ` +
        'it must reach this address: with --dev on 127.0.0.1 the API server has to run on this machine, outside any container ' +
        '(e.g. voe cluster; not kind, whose API server runs in a container); otherwise pass a --bind-address the API server can reach, ' +
        'or deploy the webhook in the cluster. The configuration was removed.',
    );
  }
  if (check === 'unverifiable') {
    log.warn(
      { configuration: name },
      'could not confirm that the API server calls the webhook (Harvester Settings not served, or not allowed to create them); it picks up the configuration within a moment',
    );
  } else {
    log.info({ configuration: name }, 'the API server calls the webhook');
  }
}
