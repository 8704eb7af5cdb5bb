import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';
import type { KubeClientConfig } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import { EXPAND_VALIDATION_SETTING_NAME } from '../settings/index.js';
import { buildValidatingWebhookConfiguration } from './registration/build-validating-webhook-configuration.js';
import { confirmDevRegistration } from './registration/confirm-dev-registration.js';
import { continueUnlessAborted } from './continue-unless-aborted.js';
import { devOwnerAnnotations, type DevOwner } from './registration/dev-registration-owner.js';
import { devRegistrationCleanup } from './registration/dev-registration-cleanup.js';
import type { StartedCaches } from './started-caches.js';
import type { StartUpCleanups } from './start-up-cleanups.js';
import { waitForCacheSync } from './wait-for-cache-sync.js';
import { watchDevRegistration } from './registration/watch-dev-registration.js';
import { registerDevConfiguration } from './registration/webhook-registration.js';

export interface DevRegistrationOptions {
  kubeConfig: KubeClientConfig;
  /** metadata.name of the configuration. */
  name: string;
  /** https://host:port the webhook answers on. */
  url: string;
  caPem: string;
  settingName: string | undefined;
  started: StartedCaches<unknown>;
  cacheSyncTimeoutMs: number;
  registrationTimeoutMs: number;
  /** The reviews the setting webhook has answered (how the API server's first call is seen). */
  reviewsAnswered: () => Promise<number>;
  cleanups: StartUpCleanups;
  logger: Logger;
  signal: AbortSignal | undefined;
}

/**
 * voe serve --dev's registration, once the caches synced: a ValidatingWebhookConfiguration
 * pointing at `url` and marked with this instance, watched for changes by others, removed by the
 * cleanups; then waits for the API server's first call.
 */
export async function registerDevWebhook(options: DevRegistrationOptions): Promise<void> {
  const { kubeConfig, name, url, cleanups, logger: log, signal } = options;
  await waitForCacheSync(options.started, options.cacheSyncTimeoutMs, signal);
  const body = devConfiguration(options);
  const { uid } = await registerDevConfiguration(kubeConfig, body, {
    logger: log,
    ...(signal ? { signal } : {}),
  }).catch((error: unknown) => {
    continueUnlessAborted(signal); // stopped while it retried: that is why
    throw error;
  });
  cleanups.add(devRegistrationCleanup({ kubeConfig, name, uid, url, logger: log }));
  // Says so when someone else deletes or edits it; stopped (cleanups run in reverse) before we delete it ourselves.
  const watching = watchDevRegistration({ kubeConfig, name, uid, logger: log });
  cleanups.add({
    run: () => watching.stop(),
    left: (why) => `Could not stop watching ValidatingWebhookConfiguration ${name}: ${why}.`,
  });
  log.info(
    { configuration: name, uid, url, webhooks: body.webhooks?.map((w) => w.name) },
    'ValidatingWebhookConfiguration registered',
  );
  continueUnlessAborted(signal);
  await confirmDevRegistration({
    kubeConfig,
    name,
    url,
    reviewsAnswered: options.reviewsAnswered,
    settingName: options.settingName ?? EXPAND_VALIDATION_SETTING_NAME,
    timeoutMs: options.registrationTimeoutMs,
    logger: log,
    signal,
  });
}

/** The configuration to register, marked with this instance so another voe serve --dev neither replaces it while we answer nor deletes it. */
function devConfiguration(options: DevRegistrationOptions): V1ValidatingWebhookConfiguration {
  const owner: DevOwner = {
    host: hostname(),
    pid: process.pid,
    id: randomBytes(8).toString('hex'),
    url: options.url,
  };
  return buildValidatingWebhookConfiguration({
    name: options.name,
    urlBase: options.url,
    caBundle: options.caPem,
    annotations: devOwnerAnnotations(owner),
    ...(options.settingName ? { settingName: options.settingName } : {}),
  });
}
