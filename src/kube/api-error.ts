// The module alone: the package's index loads its generated models (the same class either way).
import { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';

/** The parts of a Kubernetes `Status` that callers branch on. */
export interface ApiError {
  /** HTTP status code (0 when the request never got an answer). */
  code: number;
  /** Status.reason, e.g. `NotFound`, `Conflict`, `Expired`, `AlreadyExists`; '' when unknown. */
  reason: string;
  message: string;
}

function statusCodeOf(e: object): number | undefined {
  const rec = e as Record<string, unknown>;
  for (const field of ['code', 'statusCode']) {
    const v = rec[field];
    if (typeof v === 'number' && v >= 100 && v < 600) return v;
  }
  return undefined;
}

function parseStatusBody(
  body: unknown,
): { reason?: string; message?: string; code?: number } | undefined {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return body.trim() === '' ? undefined : { message: body.trim() };
    }
  }
  if (value === null || typeof value !== 'object') return undefined;
  const rec = value as Record<string, unknown>;
  return {
    reason: typeof rec.reason === 'string' ? rec.reason : undefined,
    message: typeof rec.message === 'string' ? rec.message : undefined,
    code: typeof rec.code === 'number' ? rec.code : undefined,
  };
}

/**
 * Extracts {code, reason, message} from anything a Kubernetes call can throw: client-node's
 * `ApiException` (whose `body` is the raw response text, docs/kube.md), our own request errors
 * (which carry the same fields), a watch `ERROR` Status object, or a plain Error (code 0).
 * Returns undefined for non-objects.
 */
export function apiErrorOf(e: unknown): ApiError | undefined {
  if (e === null || typeof e !== 'object') return undefined;
  const rec = e as Record<string, unknown>;
  if (rec.kind === 'Status') {
    const parsed = parseStatusBody(rec);
    return {
      code: parsed?.code ?? 0,
      reason: parsed?.reason ?? '',
      message: parsed?.message ?? '',
    };
  }
  const code = statusCodeOf(e) ?? 0;
  const parsed = e instanceof ApiException || 'body' in rec ? parseStatusBody(rec.body) : undefined;
  const fallback = e instanceof Error && !(e instanceof ApiException) ? e.message : '';
  return {
    code: parsed?.code ?? code,
    reason: parsed?.reason ?? '',
    message: parsed?.message ?? fallback,
  };
}

export function isNotFound(e: unknown): boolean {
  return apiErrorOf(e)?.code === 404;
}

export function isConflict(e: unknown): boolean {
  return apiErrorOf(e)?.code === 409 && apiErrorOf(e)?.reason !== 'AlreadyExists';
}

export function isAlreadyExists(e: unknown): boolean {
  const err = apiErrorOf(e);
  return err?.code === 409 && err.reason === 'AlreadyExists';
}

/** 410 Gone / reason Expired: the resourceVersion is too old (compacted); relist. */
export function isGone(e: unknown): boolean {
  const err = apiErrorOf(e);
  return err?.code === 410 || err?.reason === 'Expired' || err?.reason === 'Gone';
}

/**
 * A failure worth retrying: no HTTP answer (connection refused or reset, timeout), 429 Too Many
 * Requests, or a 5xx (the API server or etcd busy or restarting).
 */
export function isTransient(e: unknown): boolean {
  const code = apiErrorOf(e)?.code ?? 0;
  return code === 0 || code === 429 || code >= 500;
}
