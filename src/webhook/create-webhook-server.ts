import type { Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/index.js';
import { createAdmissionHandler } from './admission-handler.js';
import { cacheGauges } from './cache-gauges.js';
import {
  certificateNotValidWhy,
  createCertificateReloader,
  type CertificateReloader,
} from './certificates/certificate-reloader.js';
import { createWebhookApp } from './create-webhook-app.js';
import { closeHttpsServer, createHttpsServer, listenOn } from './create-https-server.js';
import { listenAdvice } from './listen-advice.js';
import { readCacheReadiness } from './read-cache-readiness.js';
import { readinessAnswer } from './readiness-answer.js';
import { routeWebhookRequest, type RequestHandler } from './route-webhook-request.js';
import type { Validator } from '../admission/index.js';
import { validatorsByPath } from './validators-by-path.js';
import { WebhookError } from './webhook-error.js';
import { createWebhookMetrics, type WebhookMetrics } from './webhook-metrics.js';

/**
 * Largest AdmissionReview body accepted. An UPDATE's review carries the object twice (object and
 * oldObject), each as large as the API server accepts in a write (3 MiB of JSON), plus less than
 * 1 MiB of the rest: 7 MiB, controller-runtime's webhook limit. A lower one would answer 413 to a
 * legitimate update of a large VM, which failurePolicy Fail turns into a refused update.
 */
export const DEFAULT_BODY_LIMIT_BYTES = 7 * 1024 * 1024;

export interface WebhookServerOptions {
  validators: readonly Validator[];
  tls: { certFile: string; keyFile: string };
  /** True once the caches the validators read are synced; /readyz also needs the certificate. */
  ready: () => boolean;
  /**
   * What /readyz names: caches not synced yet, resources the cluster does not serve (cached as
   * empty) and resources watched but not read yet (StartedCaches.notRead: they do not make it
   * unready).
   */
  cacheStatus?: () => {
    unsynced?: string[];
    notServed?: string[];
    notRead?: string[];
  };
  logger: Logger;
  /** Where metrics go; default a private Registry with prom-client's default metrics. */
  registry?: Registry;
  bodyLimitBytes?: number;
  /** See CertificateReloaderOptions. */
  certificatePollIntervalMs?: number;
  certificateDebounceMs?: number;
  certificateSettleMs?: number;
  /** A connection that has not finished its TLS handshake after this long is dropped; default 120 s (Node's). */
  handshakeTimeoutMs?: number;
}

export interface WebhookServer {
  /** Loads the certificate, starts watching it and listens; resolves with the bound address. */
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * From now on every answer carries `Connection: close` (the admission fast path and the express
   * routes alike), so a client opens a new connection for its next request (in cluster: to another
   * pod, once this one left the Service's endpoints) instead of reusing one that close() would cut
   * while a request is on its way (the API server does not retry a POST). For voe serve's
   * --shutdown-delay. Safe to call twice.
   */
  drain(): void;
  /**
   * Drains (as drain()), stops listening, closes idle connections, answers the requests in flight
   * (each connection then closes after its answer) and stops the certificate watch; connections
   * still open after 5 s are destroyed. Safe to call twice.
   */
  close(): Promise<void>;
  readonly registry: Registry;
  /** The reviews the webhook `name` has answered so far, read from its requests counter in process. */
  reviewsAnswered(name: string): Promise<number>;
  /** Re-reads the certificate files now (as on a file change); true if a new pair was applied. */
  reloadCertificate(): Promise<boolean>;
}

/**
 * The admission webhook on node:https. Each validator answers POST <validator.path> through its
 * admission handler (a plain node:http handler: the hot path); express 5 serves GET /livez, /readyz,
 * /metrics, 405 and 404; paths match exactly (letter case, no trailing slash). Never crashes on input: anything that is not an
 * admission.k8s.io/v1 AdmissionReview gets 400 with a message, a body over the limit 413,
 * an unknown path 404, and a validator failure a refusal with code 500 (HTTP 200).
 */
export function createWebhookServer(options: WebhookServerOptions): WebhookServer {
  const log = options.logger;
  const metrics = createWebhookMetrics(options.registry, cacheGauges(options));
  const byPath = validatorsByPath(options.validators);
  startMetricsAtZero(metrics, byPath.values());

  let server: Server | undefined;
  const connections = new Set<Socket>();
  let certificateLoaded = false;
  let draining = false;
  let closing: Promise<void> | undefined;
  const reloader = certificateReloader(options, metrics, (pair) =>
    server?.setSecureContext({ cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' }),
  );
  const app = createWebhookApp({
    paths: [...byPath.keys()],
    readiness: () => {
      const served = reloader.current();
      return readinessAnswer({
        ...readCacheReadiness(options, log),
        certificateLoaded,
        certificateNotValid: served ? certificateNotValidWhy(served) : undefined,
      });
    },
    registry: metrics.registry,
    logger: log,
  });
  const handlers = admissionHandlers(byPath.values(), metrics, log, options.bodyLimitBytes);
  const route = routeWebhookRequest(handlers, app, () => draining);

  return {
    registry: metrics.registry,
    async reviewsAnswered(name) {
      const { values } = await metrics.requests.get();
      return values
        .filter((sample) => sample.labels.webhook === name)
        .reduce((sum, sample) => sum + sample.value, 0);
    },
    reloadCertificate: () => reloader.reload(),
    drain() {
      if (draining) return;
      draining = true;
      log.info('draining: every answer now closes its connection');
    },
    async listen(port, host) {
      if (server)
        throw new WebhookError('WEBHOOK_LISTEN_FAILED', 'The webhook server is already listening.');
      const pair = await reloader.start();
      certificateLoaded = true;
      const https = createHttpsServer({
        pair,
        handshakeTimeoutMs: options.handshakeTimeoutMs,
        route,
        connections,
        logger: log,
      });
      server = https;
      try {
        await listenOn(https, port, host);
      } catch (error) {
        reloader.stop();
        server = undefined;
        throw listenFailed(error, host, port);
      }
      https.on('error', (error) => log.error({ error: error.message }, 'webhook server error'));
      const address = https.address() as AddressInfo;
      log.info(
        { address: address.address, port: address.port, webhooks: [...byPath.keys()] },
        'webhook server listening',
      );
      return address;
    },
    close() {
      closing ??= (async () => {
        // An answer still being written closes its connection, rather than leaving it idle to be cut.
        draining = true;
        reloader.stop();
        if (server) await closeHttpsServer(server, connections);
      })();
      return closing;
    },
  };
}

/** The admission handler of each validator, by its path. */
function admissionHandlers(
  validators: Iterable<Validator>,
  metrics: WebhookMetrics,
  logger: Logger,
  bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES,
): Map<string, RequestHandler> {
  const handlers = new Map<string, RequestHandler>();
  for (const validator of validators)
    handlers.set(
      validator.path,
      createAdmissionHandler(validator, { metrics, logger, bodyLimitBytes }),
    );
  return handlers;
}

function listenFailed(error: unknown, host: string, port: number): WebhookError {
  return new WebhookError(
    'WEBHOOK_LISTEN_FAILED',
    `Cannot listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}. ${listenAdvice(error)}`,
    { cause: error },
  );
}

/**
 * Every known (bounded) label combination starts at 0, so `increase(...) > 0` sees the first event
 * (a series that appears with 1 has no earlier sample to increase from).
 */
function startMetricsAtZero(metrics: WebhookMetrics, validators: Iterable<Validator>): void {
  for (const result of ['success', 'failure'] as const)
    metrics.certificateReloads.inc({ result }, 0);
  for (const validator of validators) metrics.badRequests.inc({ webhook: validator.name }, 0);
}

/** Watches the serving certificate; a new pair goes to `apply` and every reload into the metrics. */
function certificateReloader(
  options: WebhookServerOptions,
  metrics: WebhookMetrics,
  apply: (pair: { cert: string; key: string }) => void,
): CertificateReloader {
  return createCertificateReloader({
    certFile: options.tls.certFile,
    keyFile: options.tls.keyFile,
    logger: options.logger,
    ...(options.certificatePollIntervalMs === undefined
      ? {}
      : { pollIntervalMs: options.certificatePollIntervalMs }),
    ...(options.certificateDebounceMs === undefined
      ? {}
      : { debounceMs: options.certificateDebounceMs }),
    ...(options.certificateSettleMs === undefined ? {} : { settleMs: options.certificateSettleMs }),
    onReload: apply,
    onResult: (result, pair) => {
      metrics.certificateReloads.inc({ result });
      if (pair) metrics.certificateExpiry.set(pair.notAfter.getTime() / 1000);
    },
  });
}
