import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/index.js';
import { certificateNotValidWhy, createCertificateReloader } from './certificate-reloader.js';
import { createAdmissionHandler, kubeStatus } from './admission-handler.js';
import type { Validator } from './validator.js';
import { WebhookError } from './webhook-error.js';
import { createWebhookMetrics } from './webhook-metrics.js';

/**
 * Largest AdmissionReview body accepted. An UPDATE's review carries the object twice (object and
 * oldObject), each as large as the API server accepts in a write (3 MiB of JSON), plus less than
 * 1 MiB of the rest: 7 MiB, controller-runtime's webhook limit. A lower one would answer 413 to a
 * legitimate update of a large VM, which failurePolicy Fail turns into a refused update.
 */
export const DEFAULT_BODY_LIMIT_BYTES = 7 * 1024 * 1024;

/** What to do when listening failed, by its errno. */
function listenAdvice(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return 'Pick another --port or stop what uses it.';
    case 'EADDRNOTAVAIL':
      return "The address is not one of this machine's: pick another --bind-address.";
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'The --bind-address is neither an IP address nor a name this machine resolves: give an address of this machine.';
    case 'EACCES':
      return 'Ports below 1024 need root (or CAP_NET_BIND_SERVICE): pick a --port above 1023.';
    default:
      return 'Check --bind-address and --port.';
  }
}

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
  const metrics = createWebhookMetrics(options.registry, {
    cachesNotSynced: () => {
      try {
        const unsynced = options.cacheStatus?.().unsynced?.length ?? 0;
        return unsynced > 0 || options.ready() ? unsynced : 1;
      } catch {
        return 1;
      }
    },
    cachesNotRead: () => {
      try {
        return options.cacheStatus?.().notRead?.length ?? 0;
      } catch {
        return 0;
      }
    },
  });
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const byPath = new Map<string, Validator>();
  for (const validator of options.validators) {
    if (!validator.path.startsWith('/')) {
      throw new WebhookError(
        'WEBHOOK_INVALID_OPTIONS',
        `Validator ${validator.name} has path "${validator.path}"; paths must start with "/".`,
      );
    }
    if (byPath.has(validator.path)) {
      throw new WebhookError(
        'WEBHOOK_DUPLICATE_PATH',
        `Validators ${byPath.get(validator.path)?.name} and ${validator.name} both use path ${validator.path}; give each its own path.`,
      );
    }
    byPath.set(validator.path, validator);
  }
  // Every known (bounded) label combination starts at 0, so `increase(...) > 0` sees the first event
  // (a series that appears with 1 has no earlier sample to increase from).
  for (const result of ['success', 'failure'] as const)
    metrics.certificateReloads.inc({ result }, 0);
  for (const validator of byPath.values()) metrics.badRequests.inc({ webhook: validator.name }, 0);

  let server: Server | undefined;
  const connections = new Set<Socket>();
  let certificateLoaded = false;
  const reloader = createCertificateReloader({
    certFile: options.tls.certFile,
    keyFile: options.tls.keyFile,
    logger: log,
    ...(options.certificatePollIntervalMs === undefined
      ? {}
      : { pollIntervalMs: options.certificatePollIntervalMs }),
    ...(options.certificateDebounceMs === undefined
      ? {}
      : { debounceMs: options.certificateDebounceMs }),
    ...(options.certificateSettleMs === undefined ? {} : { settleMs: options.certificateSettleMs }),
    onReload: (pair) =>
      server?.setSecureContext({ cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' }),
    onResult: (result, pair) => {
      metrics.certificateReloads.inc({ result });
      if (pair) metrics.certificateExpiry.set(pair.notAfter.getTime() / 1000);
    },
  });

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', false);
  // Paths match exactly, as the fast path below does: a near miss (`/validate/pvc-resize/`,
  // `/VALIDATE/PVC-RESIZE`) is 404 for every method, never a 405 that blames a POST's method.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  app.get('/livez', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  app.get('/readyz', (_req, res) => {
    let cachesReady = false;
    let status: { unsynced?: string[]; notServed?: string[]; notRead?: string[] } = {};
    try {
      cachesReady = options.ready() === true;
      status = options.cacheStatus?.() ?? {};
    } catch (error) {
      log.warn(
        { error: error instanceof Error ? error.message : String(error) },
        'readiness check failed',
      );
    }
    const list = (names: string[] | undefined): string =>
      names?.length ? ` (${names.join(', ')})` : '';
    // Expired (or not yet valid): the API server refuses the handshake, so nothing is answered.
    const served = reloader.current();
    const notValid = served ? certificateNotValidWhy(served) : undefined;
    const certificate = !certificateLoaded
      ? 'certificate not loaded'
      : notValid
        ? `certificate not servable: ${notValid}`
        : '';
    if (cachesReady && certificate === '') {
      const notServed = status.notServed?.length
        ? `; not served by the cluster, watched as empty: ${status.notServed.join(', ')}`
        : '';
      const notRead = status.notRead?.length
        ? `; served but not read yet (not listed, see the log): ${status.notRead.join(', ')}`
        : '';
      res.type('text/plain').send(`ok${notServed}${notRead}`);
      return;
    }
    const missing = [cachesReady ? '' : `caches not synced${list(status.unsynced)}`, certificate]
      .filter(Boolean)
      .join(', ');
    res.status(503).type('text/plain').send(`not ready: ${missing}`);
  });
  app.get('/metrics', async (_req, res) => {
    let text: string;
    try {
      text = await metrics.registry.metrics();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      log.warn({ error: why }, 'metrics unavailable');
      res.status(500).type('text/plain').send(`metrics unavailable: ${why}`);
      return;
    }
    res.type(metrics.registry.contentType).send(text);
  });

  const admissionHandlers = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
  for (const validator of byPath.values()) {
    admissionHandlers.set(
      validator.path,
      createAdmissionHandler(validator, { metrics, logger: log, bodyLimitBytes: bodyLimit }),
    );
    app.all(validator.path, (_req, res) => {
      res
        .status(405)
        .set('Allow', 'POST')
        .json(
          kubeStatus(
            405,
            'MethodNotAllowed',
            `${validator.path} only answers POST with an AdmissionReview`,
          ),
        );
    });
  }

  app.use((req, res) => {
    res
      .status(404)
      .json(
        kubeStatus(
          404,
          'NotFound',
          `no webhook at ${req.path.slice(0, 200)}; webhooks: ${[...byPath.keys()].join(', ')}`,
        ),
      );
  });
  // Anything unexpected in the express routes: answered, never thrown.
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    log.error(
      { path: req.path, error: error instanceof Error ? error.message : String(error) },
      'unexpected error while answering a request',
    );
    res
      .status(500)
      .json(
        kubeStatus(
          500,
          'InternalError',
          'unexpected error while answering the request; see the voe webhook logs',
        ),
      );
  });

  let draining = false;
  /** POST to a webhook path goes straight to its admission handler; everything else to express. */
  const route = (req: IncomingMessage, res: ServerResponse): void => {
    // Merged into the admission handler's writeHead and kept by express: Node then closes the
    // connection after this answer.
    if (draining) res.setHeader('connection', 'close');
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const handler =
      req.method === 'POST'
        ? admissionHandlers.get(query < 0 ? url : url.slice(0, query))
        : undefined;
    if (handler) handler(req, res);
    else app(req, res);
  };

  let closing: Promise<void> | undefined;
  return {
    registry: metrics.registry,
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
      const https = createServer(
        {
          cert: pair.cert,
          key: pair.key,
          minVersion: 'TLSv1.2',
          ...(options.handshakeTimeoutMs === undefined
            ? {}
            : { handshakeTimeout: options.handshakeTimeoutMs }),
        },
        route,
      );
      // Every TCP connection, from its first byte: one still in its TLS handshake is no HTTP
      // connection yet, and closeAllConnections() does not reach it (a port scan or a stalled
      // client would keep close() waiting for ever).
      https.on('connection', (socket: Socket) => {
        connections.add(socket);
        socket.once('close', () => connections.delete(socket));
      });
      // The API server keeps connections to webhooks alive and drops them after 90 s idle (Go's
      // IdleConnTimeout, set by k8s.io/apimachinery's SetTransportDefaults). Its timer starts when it
      // has read an answer, ours when we wrote it: with the same 90 s we would close first, racing
      // with a request already on its way (Go does not retry a POST). A little longer lets it close first.
      https.keepAliveTimeout = 95_000;
      https.headersTimeout = 32_000;
      https.requestTimeout = 60_000;
      https.on('tlsClientError', (error) =>
        log.debug({ error: error.message }, 'TLS handshake failed'),
      );
      https.on('clientError', (error: NodeJS.ErrnoException, socket) => {
        if (error.code === 'ERR_TLS_HANDSHAKE_TIMEOUT') {
          // Nothing can be answered over a connection without TLS: drop it (ending it would leave it half-closed).
          log.debug({ error: error.message }, 'TLS handshake timed out');
          socket.destroy();
          return;
        }
        log.debug({ error: error.message }, 'malformed HTTP request');
        if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
        else socket.destroy();
      });
      server = https;
      try {
        await new Promise<void>((resolve, reject) => {
          https.once('error', reject);
          https.listen(port, host, () => {
            https.off('error', reject);
            resolve();
          });
        });
      } catch (error) {
        reloader.stop();
        server = undefined;
        throw new WebhookError(
          'WEBHOOK_LISTEN_FAILED',
          `Cannot listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}. ${listenAdvice(error)}`,
          { cause: error },
        );
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
        const https = server;
        if (!https) return;
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => {
            https.closeAllConnections();
            for (const socket of connections) socket.destroy();
          }, 5_000);
          force.unref();
          https.close(() => {
            clearTimeout(force);
            resolve();
          });
          https.closeIdleConnections();
        });
      })();
      return closing;
    },
  };
}
