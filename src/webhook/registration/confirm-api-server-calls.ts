import { apiErrorOf, requestJson, type KubeClientConfig } from '../../kube/index.js';
import { waitUntil } from '../../wait/index.js';

export type RegistrationCheck = 'confirmed' | 'unverifiable' | 'timeout' | 'aborted';

/**
 * After registering the webhooks: waits until the API server actually calls them (it picks up a new
 * ValidatingWebhookConfiguration asynchronously, and may not reach the URL at all). Probes with a
 * dry-run create of the Setting `settingName` (changes nothing; the setting webhook is called
 * before the API server finds that the Setting exists) until the webhook counts a review.
 * 'unverifiable' when the cluster does not serve Harvester Settings or we may not create them;
 * 'aborted' as soon as `signal` aborts (its pause between probes ends at once).
 * `reviewsAnswered` counts the setting webhook's answers, in process.
 */
export async function confirmApiServerCalls(options: {
  kubeConfig: KubeClientConfig;
  reviewsAnswered: () => Promise<number>;
  settingName: string;
  timeoutMs: number;
  pollMs?: number;
  signal?: AbortSignal;
}): Promise<RegistrationCheck> {
  let unverifiable = false;
  const outcome = await waitUntil(
    async () => {
      const before = await options.reviewsAnswered();
      try {
        await requestJson(options.kubeConfig, {
          method: 'POST',
          path: '/apis/harvesterhci.io/v1beta1/settings',
          query: { dryRun: 'All' },
          // Harvester's stock Setting (Longhorn validated by default): the setting webhook allows it.
          body: {
            apiVersion: 'harvesterhci.io/v1beta1',
            kind: 'Setting',
            metadata: { name: options.settingName },
            default: '{"driver.longhorn.io":true}',
            value: '',
          },
        });
      } catch (error) {
        const code = apiErrorOf(error)?.code ?? 0;
        if (code === 404 || code === 403) return (unverifiable = true);
        // 409 (the Setting exists) or a webhook call that failed: look at what the webhook saw.
      }
      return (await options.reviewsAnswered()) > before;
    },
    { timeoutMs: options.timeoutMs, intervalMs: options.pollMs ?? 100, signal: options.signal },
  );
  if (outcome !== 'ok') return outcome;
  return unverifiable ? 'unverifiable' : 'confirmed';
}
