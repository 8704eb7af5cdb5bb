import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/index.js';
import { certificateSource } from './certificates/certificate-source.js';
import { continueUnlessAborted } from './continue-unless-aborted.js';
import { listenWebhook } from './listen-webhook.js';
import { registerDevWebhook } from './register-dev-webhook.js';
import {
  serveDevCertificates,
  type DevCertificates,
} from './certificates/serve-dev-certificates.js';
import { startCachesExplained } from './start-caches-explained.js';
import { WEBHOOK_ENDPOINTS } from './webhook-endpoints.js';
import {
  createStartUpCleanups,
  undoFailedStart,
  type StartUpCleanups,
} from './start-up-cleanups.js';
import type { StartedCaches } from './started-caches.js';
import type { Validator } from '../admission/index.js';

export interface ServeWebhookOptions<C> {
  kubeConfig: KubeConfig;
  logger: Logger;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** dev: generate a CA and serving certificate and register a url-based configuration; else serve tlsCertFile/tlsKeyFile. */
  dev: boolean;
  /** dev only: where ca.crt, tls.crt and tls.key are written; default a temporary directory removed on stop. */
  certDir?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** dev only: metadata.name of the registered ValidatingWebhookConfiguration. */
  configurationName?: string;
  /** dev only: the Setting whose updates the registered setting webhook receives (the validators' settingName). */
  settingName?: string;
  /** dev only: how long to wait, after registering, for the API server's first call (default 30 s). */
  registrationTimeoutMs?: number;
  /** dev only: how long to wait for the caches before registering (default 120 s). */
  cacheSyncTimeoutMs?: number;
  /** dev only: how often the serving certificate is renewed (default DEV_RENEW_EVERY_MS, 20 days; tests: shorter). */
  devCertificateRenewMs?: number;
  /** Metrics registry of the server; default a private one. */
  registry?: Registry;
  /**
   * Aborting it stops the start-up at its next step or wait (also the cache-sync and the
   * registration waits): what was done is undone as by stop(), and serveWebhook rejects with
   * WEBHOOK_START_ABORTED. After start-up it does nothing: call stop().
   */
  signal?: AbortSignal;
  startCaches: (kubeConfig: KubeConfig, logger: Logger) => Promise<StartedCaches<C>>;
  createValidators: (caches: C, options: { logger: Logger }) => Validator[];
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

export const DEV_CONFIGURATION_NAME = 'voe-dev';

/**
 * Runs the webhook: starts the caches, builds the validators, serves HTTPS; in dev mode also
 * creates certificates and registers a ValidatingWebhookConfiguration pointing at this process
 * (removed again by stop()). The caches and validators are injected so the cli wires the real
 * informers (src/kube) and decisions.
 */
export async function serveWebhook<C>(options: ServeWebhookOptions<C>): Promise<ServingWebhook> {
  const log = options.logger;
  const cleanups = createStartUpCleanups(log);
  // Start-up stops when asked to: `signal` ends every wait at once, and the next step throws why.
  const signal = options.signal;
  try {
    continueUnlessAborted(signal);
    const { dev, ...tls } = await servingCertificate(options, cleanups);
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
    let configurationName: string | undefined;
    if (dev) {
      configurationName = options.configurationName ?? DEV_CONFIGURATION_NAME;
      await registerDevWebhook({
        kubeConfig: options.kubeConfig,
        name: configurationName,
        url,
        caPem: dev.caPem,
        settingName: options.settingName,
        started,
        cacheSyncTimeoutMs: options.cacheSyncTimeoutMs ?? 120_000,
        registrationTimeoutMs: options.registrationTimeoutMs ?? 30_000,
        reviewsAnswered: () => server.reviewsAnswered(WEBHOOK_ENDPOINTS.setting.name),
        cleanups,
        logger: log,
        signal,
      });
    }
    return {
      address,
      url,
      stop: () => cleanups.stop(),
      drain: () => server.drain(),
      ...(dev === undefined ? {} : { certDir: dev.certDir }),
      ...(configurationName === undefined ? {} : { configurationName }),
    };
  } catch (error) {
    return await undoFailedStart(error, cleanups);
  }
}

/**
 * The certificate to serve, once the options are checked: the given files, or (--dev) ones
 * generated for this instance (`dev` says where).
 */
async function servingCertificate<C>(
  options: ServeWebhookOptions<C>,
  cleanups: StartUpCleanups,
): Promise<{ certFile: string; keyFile: string; dev?: DevCertificates }> {
  const source = certificateSource(options);
  if (!source.dev) return { certFile: source.certFile, keyFile: source.keyFile };
  const dev = await serveDevCertificates({
    certDir: source.certDir,
    host: options.host,
    renewEveryMs: options.devCertificateRenewMs,
    cleanups,
    logger: options.logger,
    signal: options.signal,
  });
  return { certFile: dev.certFile, keyFile: dev.keyFile, dev };
}
