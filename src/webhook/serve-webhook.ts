import type { AddressInfo } from 'node:net';
import type { KubeClientConfig } from '../kube/index.js';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/index.js';
import { chooseServingSetup, type ServingChoice } from './choose-serving-setup.js';
import { continueUnlessAborted } from './continue-unless-aborted.js';
import { listenWebhook } from './listen-webhook.js';
import type { ServingSetup } from './serving-setup.js';
import { startCachesExplained } from './start-caches-explained.js';
import { WEBHOOK_ENDPOINTS } from './webhook-endpoints.js';
import { createStartUpCleanups, undoFailedStart } from './start-up-cleanups.js';
import type { StartedCaches } from './started-caches.js';
import type { Validator } from '../admission/index.js';

export { DEV_CONFIGURATION_NAME } from './dev-serving-setup.js';

export interface ServeWebhookCommon<C> {
  kubeConfig: KubeClientConfig;
  logger: Logger;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Metrics registry of the server; default a private one. */
  registry?: Registry;
  /**
   * Aborting it stops the start-up at its next step or wait (also the cache-sync and the
   * registration waits): what was done is undone as by stop(), and serveWebhook rejects with
   * WEBHOOK_START_ABORTED. After start-up it does nothing: call stop().
   */
  signal?: AbortSignal;
  startCaches: (kubeConfig: KubeClientConfig, logger: Logger) => Promise<StartedCaches<C>>;
  createValidators: (caches: C, options: { logger: Logger }) => Validator[];
}

/**
 * The webhook to run. `setup` is how it gets its certificate and what it does once it listens:
 * voe serve's cli picks one (chooseServingSetup); without it, it is chosen from the ServingChoice
 * fields here (dev defaults to false).
 */
export interface ServeWebhookOptions<C> extends ServeWebhookCommon<C>, Partial<ServingChoice> {
  setup?: ServingSetup;
}

export interface ServingWebhook {
  address: AddressInfo;
  /** https://host:port the webhook answers on. */
  url: string;
  /** dev: directory holding ca.crt, tls.crt, tls.key. */
  certDir?: string;
  /** dev: the registered configuration's name. */
  configurationName?: string;
  /**
   * The shutdown started (voe serve's --shutdown-delay): from now on every answer carries
   * `Connection: close`, so clients stop reusing connections that stop() would cut
   * (WebhookServer.drain). Safe to call twice.
   */
  drain(): void;
  /**
   * Removes the registration (dev), closes the server, stops the caches, deletes a temporary cert
   * dir. Tries each; if any failed, rejects with WEBHOOK_CLEANUP_FAILED saying what is left and how
   * to remove it by hand. Safe to call twice.
   */
  stop(): Promise<void>;
}

/**
 * Runs the webhook: its setup's certificate, the caches, the validators served over HTTPS, then
 * the setup's step once it listens (voe serve --dev: registering a ValidatingWebhookConfiguration
 * pointing at this process, removed again by stop()). The caches and validators are injected so
 * the cli wires the real informers (src/kube) and decisions.
 */
export async function serveWebhook<C>(options: ServeWebhookOptions<C>): Promise<ServingWebhook> {
  const log = options.logger;
  const cleanups = createStartUpCleanups(log);
  // Start-up stops when asked to: `signal` ends every wait at once, and the next step throws why.
  const signal = options.signal;
  const step = { cleanups, logger: log, signal };
  try {
    continueUnlessAborted(signal);
    const setup = options.setup ?? chooseServingSetup({ ...options, dev: options.dev === true });
    const tls = await setup.prepareCertificate({ ...step, host: options.host });
    const started = await startCachesExplained(options.startCaches, options.kubeConfig, log);
    cleanups.add({
      run: () => started.stop(),
      left: (why) => `Could not stop the informers cleanly: ${why}.`,
    });
    continueUnlessAborted(signal);
    const { server, address, url } = await listenWebhook({
      started,
      createValidators: options.createValidators,
      tls,
      host: options.host,
      port: options.port,
      registry: options.registry,
      cleanups,
      logger: log,
      signal,
    });
    await setup.afterListening({
      ...step,
      kubeConfig: options.kubeConfig,
      url,
      started,
      reviewsAnswered: () => server.reviewsAnswered(WEBHOOK_ENDPOINTS.setting.name),
    });
    return {
      address,
      url,
      stop: () => cleanups.stop(),
      drain: () => server.drain(),
      ...setup.described(),
    };
  } catch (error) {
    return await undoFailedStart(error, cleanups);
  }
}
