import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/index.js';
import { createCertificateReloader } from './certificate-reloader.js';
import { parseAdmissionReview } from './parse-admission-review.js';
import { runValidator } from './run-validator.js';
import { toAdmissionReview } from './to-admission-review.js';
import type { Validator } from './validator.js';
import { WebhookError } from './webhook-error.js';
import { createWebhookMetrics } from './webhook-metrics.js';

/** Largest AdmissionReview body accepted; the API server's own request limit is 3 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 3 * 1024 * 1024;

export interface WebhookServerOptions {
  validators: readonly Validator[];
  tls: { certFile: string; keyFile: string };
  /** True once the caches the validators read are synced; /readyz also needs the certificate. */
  ready: () => boolean;
  logger: Logger;
  /** Where metrics go; default a private Registry with prom-client's default metrics. */
  registry?: Registry;
  bodyLimitBytes?: number;
  /** See CertificateReloaderOptions. */
  certificatePollIntervalMs?: number;
  certificateDebounceMs?: number;
}

export interface WebhookServer {
  /** Loads the certificate, starts watching it and listens; resolves with the bound address. */
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops listening, closes connections and stops the certificate watch. Safe to call twice. */
  close(): Promise<void>;
  readonly registry: Registry;
  /** Re-reads the certificate files now (as on a file change); true if a new pair was applied. */
  reloadCertificate(): Promise<boolean>;
}

interface KubeStatus { kind: 'Status'; apiVersion: 'v1'; status: 'Failure'; code: number; reason: string; message: string }

function status(code: number, reason: string, message: string): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

interface BodyParserError { type?: string; status?: number; message?: string; limit?: number }

/**
 * The admission webhook: express 5 on node:https. Each validator answers POST <validator.path>;
 * also GET /livez, /readyz and /metrics. Never crashes on input: anything that is not an
 * admission.k8s.io/v1 AdmissionReview gets 400 with a message, a body over the limit 413,
 * an unknown path 404, and a validator failure a refusal with code 500 (HTTP 200).
 */
export function createWebhookServer(options: WebhookServerOptions): WebhookServer {
  const log = options.logger;
  const metrics = createWebhookMetrics(options.registry);
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const byPath = new Map<string, Validator>();
  for (const validator of options.validators) {
    if (!validator.path.startsWith('/')) {
      throw new WebhookError('WEBHOOK_INVALID_OPTIONS', `Validator ${validator.name} has path "${validator.path}"; paths must start with "/".`);
    }
    if (byPath.has(validator.path)) {
      throw new WebhookError('WEBHOOK_DUPLICATE_PATH', `Validators ${byPath.get(validator.path)?.name} and ${validator.name} both use path ${validator.path}; give each its own path.`);
    }
    byPath.set(validator.path, validator);
  }

  let server: Server | undefined;
  let certificateLoaded = false;
  const reloader = createCertificateReloader({
    certFile: options.tls.certFile,
    keyFile: options.tls.keyFile,
    logger: log,
    ...(options.certificatePollIntervalMs === undefined ? {} : { pollIntervalMs: options.certificatePollIntervalMs }),
    ...(options.certificateDebounceMs === undefined ? {} : { debounceMs: options.certificateDebounceMs }),
    onReload: (pair) => server?.setSecureContext({ cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' }),
    onResult: (result, pair) => {
      metrics.certificateReloads.inc({ result });
      if (pair) metrics.certificateExpiry.set(pair.notAfter.getTime() / 1000);
    },
  });

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', false);

  app.get('/livez', (_req, res) => { res.type('text/plain').send('ok'); });
  app.get('/readyz', (_req, res) => {
    let cachesReady = false;
    try { cachesReady = options.ready() === true; } catch (error) {
      log.warn({ error: error instanceof Error ? error.message : String(error) }, 'readiness check failed');
    }
    if (cachesReady && certificateLoaded) { res.type('text/plain').send('ok'); return; }
    const missing = [cachesReady ? '' : 'caches not synced', certificateLoaded ? '' : 'certificate not loaded'].filter(Boolean).join(', ');
    res.status(503).type('text/plain').send(`not ready: ${missing}`);
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  const parseJson = express.json({ limit: bodyLimit, strict: false, type: () => true });
  for (const validator of byPath.values()) {
    const webhookLog = log.child({ webhook: validator.name });
    app.post(validator.path, (_req, res, next) => { res.locals['start'] = process.hrtime.bigint(); next(); }, parseJson, async (req, res) => {
      const start = (res.locals['start'] as bigint | undefined) ?? process.hrtime.bigint();
      const empty = req.headers['content-length'] === '0';
      const parsed = empty ? { ok: false as const, message: 'the request body is empty; send an AdmissionReview' } : parseAdmissionReview(req.body);
      if (!parsed.ok) {
        metrics.badRequests.inc({ webhook: validator.name });
        webhookLog.warn({ problem: parsed.message }, 'refused a request that is not an AdmissionReview v1');
        res.status(400).json(status(400, 'BadRequest', `not an admission.k8s.io/v1 AdmissionReview: ${parsed.message}`));
        return;
      }
      const request = parsed.request;
      const { verdict, error } = await runValidator(validator, request);
      const review = toAdmissionReview(request.uid, verdict);
      res.status(200).json(review);
      const allowed = String(review.response.allowed);
      metrics.requests.inc({ webhook: validator.name, decision: verdict.decision, allowed });
      metrics.duration.observe({ webhook: validator.name, allowed }, Number(process.hrtime.bigint() - start) / 1e9);
      const fields = {
        uid: request.uid, operation: request.operation, namespace: request.namespace, name: request.name,
        user: request.userInfo?.username, dryRun: request.dryRun, decision: verdict.decision, allowed: review.response.allowed,
      };
      if (error !== undefined) {
        webhookLog.error({ ...fields, error: error instanceof Error ? error.message : String(error) }, 'validator failed; request refused with code 500');
      } else if (!review.response.allowed) {
        webhookLog.info({ ...fields, code: review.response.status?.code, message: review.response.status?.message }, 'request refused');
      } else {
        webhookLog.debug(fields, 'request allowed');
      }
    });
    app.all(validator.path, (_req, res) => {
      res.status(405).set('Allow', 'POST').json(status(405, 'MethodNotAllowed', `${validator.path} only answers POST with an AdmissionReview`));
    });
  }

  app.use((req, res) => {
    res.status(404).json(status(404, 'NotFound', `no webhook at ${req.path.slice(0, 200)}; webhooks: ${[...byPath.keys()].join(', ')}`));
  });
  // Body-parser failures and anything unexpected: answered, never thrown.
  app.use((error: BodyParserError, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) { next(error); return; }
    if (error.type === 'entity.too.large') {
      res.status(413).json(status(413, 'RequestEntityTooLarge', `the request body is larger than the ${bodyLimit} byte limit`));
    } else if (error.type === 'entity.parse.failed') {
      res.status(400).json(status(400, 'BadRequest', `the request body is not valid JSON: ${String(error.message).slice(0, 200)}`));
    } else if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
      res.status(error.status).json(status(error.status, 'BadRequest', `cannot read the request body: ${String(error.message).slice(0, 200)}`));
    } else {
      log.error({ path: req.path, error: error instanceof Error ? error.message : String(error) }, 'unexpected error while answering a request');
      res.status(500).json(status(500, 'InternalError', 'unexpected error while answering the request; see the voe webhook logs'));
    }
    const webhook = byPath.get(req.path)?.name;
    if (webhook) metrics.badRequests.inc({ webhook });
  });

  let closing: Promise<void> | undefined;
  return {
    registry: metrics.registry,
    reloadCertificate: () => reloader.reload(),
    async listen(port, host) {
      if (server) throw new WebhookError('WEBHOOK_LISTEN_FAILED', 'The webhook server is already listening.');
      const pair = await reloader.start();
      certificateLoaded = true;
      const https = createServer({ cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' }, app);
      // The API server keeps connections to webhooks alive (Go's idle timeout is 90 s). Closing
      // idle connections earlier races with requests already sent on them; pepr uses the same values.
      https.keepAliveTimeout = 90_000;
      https.headersTimeout = 32_000;
      https.requestTimeout = 60_000;
      https.on('tlsClientError', (error) => log.debug({ error: error.message }, 'TLS handshake failed'));
      https.on('clientError', (error, socket) => {
        log.debug({ error: error.message }, 'malformed HTTP request');
        if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n'); else socket.destroy();
      });
      server = https;
      try {
        await new Promise<void>((resolve, reject) => {
          https.once('error', reject);
          https.listen(port, host, () => { https.off('error', reject); resolve(); });
        });
      } catch (error) {
        reloader.stop();
        server = undefined;
        throw new WebhookError('WEBHOOK_LISTEN_FAILED', `Cannot listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}. Pick another --port or stop what uses it.`, { cause: error });
      }
      https.on('error', (error) => log.error({ error: error.message }, 'webhook server error'));
      const address = https.address() as AddressInfo;
      log.info({ address: address.address, port: address.port, webhooks: [...byPath.keys()] }, 'webhook server listening');
      return address;
    },
    close() {
      closing ??= (async () => {
        reloader.stop();
        const https = server;
        if (!https) return;
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => https.closeAllConnections(), 5_000);
          force.unref();
          https.close(() => { clearTimeout(force); resolve(); });
          https.closeIdleConnections();
        });
      })();
      return closing;
    },
  };
}
