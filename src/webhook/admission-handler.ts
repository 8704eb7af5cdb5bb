import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Counter, Histogram } from 'prom-client';
import { flatFieldsLogger, type Logger } from '../log/index.js';
import { parseAdmissionReview, type ParsedAdmissionReview } from './parse-admission-review.js';
import { runValidator, type ValidatorOutcome } from './run-validator.js';
import { toAdmissionReview } from './to-admission-review.js';
import type { AdmissionRequest, Validator } from './validator.js';
import type { WebhookMetrics } from './webhook-metrics.js';

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  status: 'Failure';
  code: number;
  reason: string;
  message: string;
}

export function kubeStatus(code: number, reason: string, message: string): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

function send(res: ServerResponse, statusCode: number, body: unknown, close = false): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(statusCode, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}

/** utf-8 (or no charset) and no content encoding: what the API server sends. */
function unsupportedEncoding(req: IncomingMessage): string {
  const encoding = req.headers['content-encoding'];
  if (encoding && encoding.toLowerCase() !== 'identity')
    return `content-encoding ${encoding.slice(0, 40)} is not supported`;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i
    .exec(req.headers['content-type'] ?? '')?.[1]
    ?.toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8')
    return `charset ${charset.slice(0, 40)} is not supported; send utf-8`;
  return '';
}

export interface AdmissionHandlerOptions {
  metrics: WebhookMetrics;
  logger: Logger;
  bodyLimitBytes: number;
}

/**
 * Answers POST <validator.path>: reads the body (at most bodyLimitBytes, else 413), decodes JSON
 * (else 400) with JSON.parse, checks the AdmissionReview (else 400), runs the validator (a throw
 * becomes a 500 refusal) and writes the AdmissionReview response in one write, as soon as the
 * body has ended. A plain node:http handler: no express routing or body-parser on the way.
 */
export function createAdmissionHandler(
  validator: Validator,
  options: AdmissionHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { metrics, bodyLimitBytes } = options;
  // Every line of this hot path has flat fields: checked for secrets by name only (see flatFieldsLogger).
  const log = flatFieldsLogger(options.logger, { webhook: validator.name });
  const webhook = validator.name;

  // One labelled child per (decision, reason): the label hashing is done once per series, not per request.
  const seriesByKey = new Map<
    string,
    { requests: Counter.Internal; duration: Histogram.Internal<'webhook' | 'decision' | 'reason'> }
  >();
  function seriesOf(
    allowed: boolean,
    reason: string,
  ): {
    requests: Counter.Internal;
    duration: Histogram.Internal<'webhook' | 'decision' | 'reason'>;
  } {
    const decision = allowed ? 'allowed' : 'refused';
    const key = `${decision}/${reason}`;
    let found = seriesByKey.get(key);
    if (!found) {
      const labels = { webhook, decision, reason };
      found = {
        requests: metrics.requests.labels(labels),
        duration: metrics.duration.labels(labels),
      };
      seriesByKey.set(key, found);
    }
    return found;
  }

  function badRequest(
    res: ServerResponse,
    code: number,
    reason: string,
    message: string,
    close = false,
  ): void {
    metrics.badRequests.inc({ webhook });
    log.warn({ code, problem: message }, 'refused a request that is not an AdmissionReview v1');
    send(res, code, kubeStatus(code, reason, message), close);
  }

  function unexpected(res: ServerResponse, error: unknown): void {
    // Only reachable through a bug in this file: answer instead of leaving the API server waiting.
    log.error(
      { error: error instanceof Error ? error.message : String(error) },
      'unexpected error while answering an admission review',
    );
    send(
      res,
      500,
      kubeStatus(
        500,
        'InternalError',
        'unexpected error while answering the admission review; see the voe webhook logs',
      ),
    );
  }

  function respond(
    res: ServerResponse,
    request: AdmissionRequest,
    { verdict, error }: ValidatorOutcome,
    start: bigint,
  ): void {
    const review = toAdmissionReview(request.uid, verdict);
    send(res, 200, review);
    const series = seriesOf(review.response.allowed, verdict.decision);
    series.requests.inc();
    series.duration.observe(Number(process.hrtime.bigint() - start) / 1e9);
    if (error === undefined && review.response.allowed) {
      if (log.isLevelEnabled('debug'))
        log.debug(
          {
            uid: request.uid,
            decision: verdict.decision,
            namespace: request.namespace,
            name: request.name,
          },
          'request allowed',
        );
      return;
    }
    const fields = {
      uid: request.uid,
      operation: request.operation,
      namespace: request.namespace,
      name: request.name,
      user: request.userInfo?.username,
      dryRun: request.dryRun,
      decision: verdict.decision,
      code: review.response.status?.code,
    };
    if (error !== undefined) {
      log.error(
        { ...fields, error: error instanceof Error ? error.message : String(error) },
        'validator failed; request refused with code 500',
      );
    } else {
      log.info({ ...fields, message: review.response.status?.message }, 'request refused');
    }
  }

  function answer(res: ServerResponse, parsed: ParsedAdmissionReview, start: bigint): void {
    if (!parsed.ok) {
      badRequest(
        res,
        400,
        'BadRequest',
        `not an admission.k8s.io/v1 AdmissionReview: ${parsed.message}`,
      );
      return;
    }
    const request = parsed.request;
    const outcome = runValidator(validator, request);
    if (outcome instanceof Promise) {
      outcome
        .then((o) => respond(res, request, o, start))
        .catch((error: unknown) => unexpected(res, error));
    } else {
      respond(res, request, outcome, start);
    }
  }

  return (req, res) => {
    const start = process.hrtime.bigint();
    const unsupported = unsupportedEncoding(req);
    if (unsupported) {
      badRequest(res, 415, 'UnsupportedMediaType', unsupported);
      req.resume();
      return;
    }
    const declared = Number(req.headers['content-length']);
    const tooLarge = `the request body is larger than the ${bodyLimitBytes} byte limit`;
    if (declared > bodyLimitBytes) {
      badRequest(res, 413, 'RequestEntityTooLarge', tooLarge, true);
      res.on('finish', () => req.destroy());
      return;
    }
    // The body in one buffer: the first chunk as it came (the usual case: the whole review in one
    // TLS record), later ones copied into one buffer grown to the declared length or geometrically.
    // Keeping every chunk instead would let a body sent a byte at a time cost ~190 bytes of heap
    // per byte (a Buffer object each).
    let body: Buffer | undefined;
    let owned = false;
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      if (size + chunk.length > bodyLimitBytes) {
        done = true;
        body = undefined;
        badRequest(res, 413, 'RequestEntityTooLarge', tooLarge, true);
        res.on('finish', () => req.destroy());
        return;
      }
      if (body === undefined) {
        body = chunk;
      } else {
        if (!owned || size + chunk.length > body.length) {
          const wanted = Math.max(
            size + chunk.length,
            declared > 0 ? declared : 0,
            Math.min(size * 2, bodyLimitBytes),
            16 * 1024,
          );
          const grown = Buffer.allocUnsafe(Math.min(wanted, bodyLimitBytes));
          body.copy(grown, 0, 0, size);
          body = grown;
          owned = true;
        }
        chunk.copy(body, size);
      }
      size += chunk.length;
    });
    req.on('error', () => {
      done = true;
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      if (size === 0 || body === undefined) {
        badRequest(res, 400, 'BadRequest', 'the request body is empty; send an AdmissionReview');
        return;
      }
      let review: unknown;
      try {
        review = JSON.parse(body.toString('utf8', 0, size));
      } catch (error) {
        // Where, not what: V8's message quotes the text around the error, which may be anything the client sent.
        const at = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
        badRequest(
          res,
          400,
          'BadRequest',
          `the request body is not valid JSON${at === undefined ? '' : ` (at character ${at})`}`,
        );
        return;
      }
      body = undefined;
      try {
        answer(res, parseAdmissionReview(review), start);
      } catch (error) {
        unexpected(res, error);
      }
    });
  };
}
