import type { KubeClientConfig } from '../kube/index.js';
import { isKubeError } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import { isVoeError } from '../errors/index.js';
import type { StartedCaches } from './started-caches.js';
import { WebhookError } from './webhook-error.js';

/**
 * Starts the caches; a failure that is not already one of voe's errors (or is a request that got
 * no answer: KubeError) becomes WEBHOOK_API_FAILED naming the API server the kubeconfig points to.
 */
export async function startCachesExplained<C>(
  startCaches: (kubeConfig: KubeClientConfig, logger: Logger) => Promise<StartedCaches<C>>,
  kubeConfig: KubeClientConfig,
  logger: Logger,
): Promise<StartedCaches<C>> {
  try {
    return await startCaches(kubeConfig, logger);
  } catch (error) {
    // A request that got no answer (KubeError: e.g. discovery at start) is the API server not reached, said below.
    if (isVoeError(error) && !isKubeError(error)) throw error;
    const server = kubeConfig.getCurrentCluster()?.server ?? 'no server in the kubeconfig';
    const why = (error instanceof Error ? error.message : String(error))
      .split('\n')[0]!
      .replace(/; check that the API server is reachable$/, '')
      .slice(0, 300);
    throw new WebhookError(
      'WEBHOOK_API_FAILED',
      `Cannot start watching the cluster at ${server}: ${why}. Check --kubeconfig and that the API server is reachable.`,
    );
  }
}
