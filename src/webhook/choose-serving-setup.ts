import { certificateSource } from './certificates/certificate-source.js';
import { DEV_CONFIGURATION_NAME, devServingSetup } from './dev-serving-setup.js';
import { filesServingSetup } from './files-serving-setup.js';
import type { ServingSetup } from './serving-setup.js';

/** voe serve's certificate and registration flags, as servePlan reads them. */
export interface ServingChoice {
  /** Generate a CA and serving certificate and register a url-based configuration; else serve tlsCertFile/tlsKeyFile. */
  dev: boolean;
  /** dev only: where ca.crt, tls.crt and tls.key are written; default a temporary directory removed on stop. */
  certDir?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** dev only: metadata.name of the registered ValidatingWebhookConfiguration (default DEV_CONFIGURATION_NAME). */
  configurationName?: string;
  /** dev only: the Setting whose updates the registered setting webhook receives (the validators' settingName). */
  settingName?: string;
  /** dev only: how long to wait, after registering, for the API server's first call (default 30 s). */
  registrationTimeoutMs?: number;
  /** dev only: how long to wait for the caches before registering (default 120 s). */
  cacheSyncTimeoutMs?: number;
  /** dev only: how often the serving certificate is renewed (default DEV_RENEW_EVERY_MS, 20 days; tests: shorter). */
  devCertificateRenewMs?: number;
}

/**
 * The ServingSetup the flags ask for, once checked against each other (WEBHOOK_INVALID_OPTIONS,
 * certificateSource): the given files in cluster, or --dev's own certificate and registration.
 */
export function chooseServingSetup(choice: ServingChoice): ServingSetup {
  const source = certificateSource(choice);
  if (!source.dev) return filesServingSetup(source);
  return devServingSetup({
    certDir: source.certDir,
    configurationName: choice.configurationName ?? DEV_CONFIGURATION_NAME,
    settingName: choice.settingName,
    registrationTimeoutMs: choice.registrationTimeoutMs ?? 30_000,
    cacheSyncTimeoutMs: choice.cacheSyncTimeoutMs ?? 120_000,
    renewEveryMs: choice.devCertificateRenewMs,
  });
}
