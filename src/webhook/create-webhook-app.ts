import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/index.js';
import { kubeStatus } from './admission-handler.js';

interface WebhookAppOptions {
  /** The validators' paths. */
  paths: readonly string[];
  readiness: () => { status: number; text: string };
  registry: Registry;
  logger: Logger;
}

/**
 * The webhook's express 5 routes: GET /livez, /readyz (answered by `readiness`) and /metrics; 405
 * for a webhook path asked other than by POST (a POST goes to its admission handler, not here);
 * 404 for anything else; a 500 for anything unexpected. Paths match exactly (letter case, no
 * trailing slash).
 */
export function createWebhookApp(options: WebhookAppOptions): Express {
  const app = strictExpressApp();
  addProbeRoutes(app, options);
  addMethodNotAllowed(app, options.paths);
  addFallbacks(app, options.paths, options.logger);
  return app;
}

/** An express app with no x-powered-by, ETags or query parsing, whose paths match exactly. */
function strictExpressApp(): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', false);
  // Paths match exactly, as the admission fast path does: a near miss (`/validate/pvc-resize/`,
  // `/VALIDATE/PVC-RESIZE`) is 404 for every method, never a 405 that blames a POST's method.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  return app;
}

/** GET /livez, /readyz and /metrics (a 500 naming why when the registry cannot answer). */
function addProbeRoutes(app: Express, options: WebhookAppOptions): void {
  const { registry, logger: log } = options;
  app.get('/livez', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  app.get('/readyz', (_req, res) => {
    const answer = options.readiness();
    if (answer.status !== 200) res.status(answer.status);
    res.type('text/plain').send(answer.text);
  });
  app.get('/metrics', async (_req, res) => {
    let text: string;
    try {
      text = await registry.metrics();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      log.warn({ error: why }, 'metrics unavailable');
      res.status(500).type('text/plain').send(`metrics unavailable: ${why}`);
      return;
    }
    res.type(registry.contentType).send(text);
  });
}

/** A webhook path asked by any method but POST: 405 with Allow: POST. */
function addMethodNotAllowed(app: Express, paths: readonly string[]): void {
  for (const path of paths) {
    app.all(path, (_req, res) => {
      res
        .status(405)
        .set('Allow', 'POST')
        .json(
          kubeStatus(405, 'MethodNotAllowed', `${path} only answers POST with an AdmissionReview`),
        );
    });
  }
}

/** 404 naming the webhooks for any other path; a 500 (logged) for anything unexpected, never thrown. */
function addFallbacks(app: Express, paths: readonly string[], log: Logger): void {
  app.use((req, res) => {
    res
      .status(404)
      .json(
        kubeStatus(
          404,
          'NotFound',
          `no webhook at ${req.path.slice(0, 200)}; webhooks: ${paths.join(', ')}`,
        ),
      );
  });
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
}
