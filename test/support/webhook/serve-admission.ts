import type { KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '../../../src/log/index.js';
import { beforeControlPlaneStops } from '../use-control-plane.js';
import type { AdmissionOptions } from '../../../src/admission/admission-options.js';
import type { StartedAdmissionCaches } from '../../../src/host-cache/start-admission-caches.js';
import { admissionWiring } from '../../../src/webhook/admission-wiring.js';
import {
  serveWebhook,
  type ServeWebhookOptions,
  type ServingWebhook,
} from '../../../src/webhook/serve-webhook.js';

/**
 * The real admission webhooks served in dev mode for one test file (registered as
 * `configurationName`, removed before the file's control plane stops), with the informer caches they decide from.
 */
export async function serveAdmission(
  kubeConfig: KubeConfig,
  configurationName: string,
  options: Partial<AdmissionOptions> = {},
  serve: Pick<
    Partial<ServeWebhookOptions<unknown>>,
    'logger' | 'devCertificateRenewMs' | 'certDir'
  > = {},
): Promise<{ serving: ServingWebhook; caches: StartedAdmissionCaches }> {
  let caches: StartedAdmissionCaches | undefined;
  const wiring = admissionWiring({ options });
  const serving = await serveWebhook({
    kubeConfig,
    logger: serve.logger ?? createLogger({ level: 'silent' }),
    ...(serve.devCertificateRenewMs === undefined
      ? {}
      : { devCertificateRenewMs: serve.devCertificateRenewMs }),
    ...(serve.certDir === undefined ? {} : { certDir: serve.certDir }),
    host: '127.0.0.1',
    port: 0,
    dev: true,
    configurationName,
    ...(options.settingName ? { settingName: options.settingName } : {}),
    cacheSyncTimeoutMs: 30_000,
    startCaches: async (config, logger) => (caches = await wiring.startCaches(config, logger)),
    createValidators: wiring.createValidators,
  });
  beforeControlPlaneStops(() => serving.stop());
  return { serving, caches: caches! };
}
