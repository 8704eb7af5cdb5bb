import { registerDevWebhook } from './register-dev-webhook.js';
import {
  serveDevCertificates,
  type DevCertificates,
} from './certificates/serve-dev-certificates.js';
import type { ServingSetup } from './serving-setup.js';

/** metadata.name of the ValidatingWebhookConfiguration voe serve --dev registers unless told otherwise. */
export const DEV_CONFIGURATION_NAME = 'voe-dev';

export interface DevServingOptions {
  /** Where ca.crt, tls.crt and tls.key are written; default a temporary directory removed on stop. */
  certDir: string | undefined;
  /** metadata.name of the registered ValidatingWebhookConfiguration. */
  configurationName: string;
  /** The Setting whose updates the registered setting webhook receives (the validators' settingName). */
  settingName: string | undefined;
  /** How long to wait, after registering, for the API server's first call. */
  registrationTimeoutMs: number;
  /** How long to wait for the caches before registering. */
  cacheSyncTimeoutMs: number;
  /** How often the serving certificate is renewed (default DEV_RENEW_EVERY_MS). */
  renewEveryMs: number | undefined;
}

/**
 * voe serve --dev: generates a CA and serving certificate (renewed while it serves), and once it
 * listens registers a url-based ValidatingWebhookConfiguration pointing at it, then waits for the
 * API server's first call (counted by the server itself). Both undone by the cleanups.
 */
export function devServingSetup(options: DevServingOptions): ServingSetup {
  let certificates: DevCertificates | undefined;
  return {
    async prepareCertificate({ host, cleanups, logger, signal }) {
      certificates = await serveDevCertificates({
        certDir: options.certDir,
        host,
        renewEveryMs: options.renewEveryMs,
        cleanups,
        logger,
        signal,
      });
      return { certFile: certificates.certFile, keyFile: certificates.keyFile };
    },
    async afterListening(step) {
      if (!certificates)
        throw new Error('devServingSetup: afterListening before prepareCertificate');
      await registerDevWebhook({
        kubeConfig: step.kubeConfig,
        name: options.configurationName,
        url: step.url,
        caPem: certificates.caPem,
        settingName: options.settingName,
        started: step.started,
        cacheSyncTimeoutMs: options.cacheSyncTimeoutMs,
        registrationTimeoutMs: options.registrationTimeoutMs,
        reviewsAnswered: step.reviewsAnswered,
        cleanups: step.cleanups,
        logger: step.logger,
        signal: step.signal,
      });
    },
    described: () => ({
      ...(certificates ? { certDir: certificates.certDir } : {}),
      configurationName: options.configurationName,
    }),
  };
}
