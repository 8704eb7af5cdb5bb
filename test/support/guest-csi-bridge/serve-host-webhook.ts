import type { KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '../../../src/log/index.js';
import type { StartedAdmissionCaches } from '../../../src/host-cache/start-admission-caches.js';
import { admissionWiring } from '../../../src/webhook/admission-wiring.js';
import { serveWebhook, type ServingWebhook } from '../../../src/webhook/serve-webhook.js';

/**
 * voe's admission webhooks served in dev mode and registered with the host API server (a
 * ValidatingWebhookConfiguration named `configurationName`, removed by `serving.stop()`): the
 * host's refusals of PVC growth (`PVC_EXPAND: ...`) come from it, as on a Harvester with voe.
 */
export async function serveHostWebhook(
  kubeConfig: KubeConfig,
  configurationName: string,
): Promise<{ serving: ServingWebhook; caches: StartedAdmissionCaches }> {
  let caches: StartedAdmissionCaches | undefined;
  const wiring = admissionWiring({ options: {} });
  const serving = await serveWebhook({
    kubeConfig,
    logger: createLogger({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    dev: true,
    configurationName,
    cacheSyncTimeoutMs: 30_000,
    startCaches: async (config, logger) => (caches = await wiring.startCaches(config, logger)),
    createValidators: wiring.createValidators,
  });
  return { serving, caches: caches! };
}
