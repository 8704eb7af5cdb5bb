import type { IncomingMessage, ServerResponse } from 'node:http';
import { invalidJsonMessage } from './review/invalid-json-message.js';
import { flatFieldsLogger, type FlatFieldsLogger, type Logger } from '../log/index.js';
import { admissionSeries, type AdmissionSeries } from './admission-series.js';
import { createBodyBuffer } from './review/body-buffer.js';
import { logAdmissionAnswer } from './log-admission-answer.js';
import {
  parseAdmissionReview,
  type ParsedAdmissionReview,
} from './review/parse-admission-review.js';
import { runValidator, type ValidatorOutcome } from './run-validator.js';
import { sendJson } from './send-json.js';
import { toAdmissionReview } from './review/to-admission-review.js';
import { unsupportedEncoding } from './review/unsupported-encoding.js';
import type { AdmissionRequest, Validator } from '../admission/index.js';
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
  const webhook = validator.name;
  const admission: Admission = {
    validator,
    metrics,
    // Every line of this hot path has flat fields: checked for secrets by name only (see flatFieldsLogger).
    log: flatFieldsLogger(options.logger, { webhook }),
    seriesOf: admissionSeries(metrics, webhook),
  };
  return (req, res) => {
    const start = process.hrtime.bigint();
    const unsupported = unsupportedEncoding(req);
    if (unsupported) {
      badRequest(admission, res, 415, 'UnsupportedMediaType', unsupported);
      req.resume();
      return;
    }
    const declared = Number(req.headers['content-length']);
    const tooLarge = `the request body is larger than the ${bodyLimitBytes} byte limit`;
    if (declared > bodyLimitBytes) {
      badRequest(admission, res, 413, 'RequestEntityTooLarge', tooLarge, true);
      res.on('finish', () => req.destroy());
      return;
    }
    const body = createBodyBuffer(bodyLimitBytes, declared);
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done || body.add(chunk)) return;
      done = true;
      badRequest(admission, res, 413, 'RequestEntityTooLarge', tooLarge, true);
      res.on('finish', () => req.destroy());
    });
    req.on('error', () => {
      done = true;
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      const text = body.text();
      body.release();
      answerText(admission, res, text, start);
    });
  };
}

/** What answering one webhook's reviews needs, shared by its requests. */
interface Admission {
  validator: Validator;
  metrics: WebhookMetrics;
  log: FlatFieldsLogger;
  seriesOf: (allowed: boolean, reason: string) => AdmissionSeries;
}

function badRequest(
  admission: Admission,
  res: ServerResponse,
  code: number,
  reason: string,
  message: string,
  close = false,
): void {
  admission.metrics.badRequests.inc({ webhook: admission.validator.name });
  admission.log.warn(
    { code, problem: message },
    'refused a request that is not an AdmissionReview v1',
  );
  sendJson(res, code, kubeStatus(code, reason, message), close);
}

function unexpected(admission: Admission, res: ServerResponse, error: unknown): void {
  // Only reachable through a bug in this file: answer instead of leaving the API server waiting.
  admission.log.error(
    { error: error instanceof Error ? error.message : String(error) },
    'unexpected error while answering an admission review',
  );
  sendJson(
    res,
    500,
    kubeStatus(
      500,
      'InternalError',
      'unexpected error while answering the admission review; see the voe webhook logs',
    ),
  );
}

/** The body has ended: parse it and answer. */
function answerText(
  admission: Admission,
  res: ServerResponse,
  text: string | undefined,
  start: bigint,
): void {
  if (text === undefined) {
    badRequest(
      admission,
      res,
      400,
      'BadRequest',
      'the request body is empty; send an AdmissionReview',
    );
    return;
  }
  let review: unknown;
  try {
    review = JSON.parse(text);
  } catch (error) {
    badRequest(admission, res, 400, 'BadRequest', invalidJsonMessage(error));
    return;
  }
  try {
    answer(admission, res, parseAdmissionReview(review), start);
  } catch (error) {
    unexpected(admission, res, error);
  }
}

function answer(
  admission: Admission,
  res: ServerResponse,
  parsed: ParsedAdmissionReview,
  start: bigint,
): void {
  if (!parsed.ok) {
    badRequest(
      admission,
      res,
      400,
      'BadRequest',
      `not an admission.k8s.io/v1 AdmissionReview: ${parsed.message}`,
    );
    return;
  }
  const request = parsed.request;
  const outcome = runValidator(admission.validator, request);
  if (outcome instanceof Promise) {
    outcome
      .then((o) => respond(admission, res, request, o, start))
      .catch((error: unknown) => unexpected(admission, res, error));
  } else {
    respond(admission, res, request, outcome, start);
  }
}

function respond(
  admission: Admission,
  res: ServerResponse,
  request: AdmissionRequest,
  outcome: ValidatorOutcome,
  start: bigint,
): void {
  const review = toAdmissionReview(request.uid, outcome.verdict);
  sendJson(res, 200, review);
  const series = admission.seriesOf(review.response.allowed, outcome.verdict.decision);
  series.requests.inc();
  series.duration.observe(Number(process.hrtime.bigint() - start) / 1e9);
  logAdmissionAnswer(admission.log, request, outcome, review);
}
