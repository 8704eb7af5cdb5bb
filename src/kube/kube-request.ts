import * as http from 'node:http';
import * as https from 'node:https';
// The module alone: the package's index loads its generated models (the same class either way).
import { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
import type { KubeClientConfig } from './kube-client-config.js';
import { KubeError, KubeErrorCode } from './kube-error.js';

export type QueryParams = Record<string, string | number | boolean | undefined>;

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. `/api/v1/namespaces/default/configmaps/x`. */
  path: string;
  query?: QueryParams;
  body?: unknown;
  /** Content-Type of the body; `application/json` unless told (merge patch: `application/merge-patch+json`). */
  contentType?: string;
  /** Fails the request when the connection is silent this long; 30 s unless told. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Prepared {
  mod: typeof http | typeof https;
  options: https.RequestOptions;
}

/**
 * Authentication and TLS come from the kubeconfig's `applyToHTTPSOptions` (client
 * certificates, tokens, exec/OIDC plugins: LeanKubeConfig, or client-node's KubeConfig whose
 * per-call https.Agent is dropped) so requests share
 * Node's keep-alive global agent (client-node 1.x opens a new agent per request: fd churn,
 * docs/kube.md); idle pooled sockets are unref'd and do not keep a process alive.
 * Not supported: kubeconfig `proxy-url`.
 */
async function prepare(
  kc: KubeClientConfig,
  method: string,
  path: string,
  query: QueryParams | undefined,
  headers: Record<string, string>,
): Promise<Prepared> {
  const cluster = kc.getCurrentCluster();
  if (!cluster)
    throw new KubeError(
      KubeErrorCode.RequestFailed,
      'the kubeconfig has no current cluster; set a current-context',
    );
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined) url.searchParams.set(k, String(v));
  const options: https.RequestOptions = {
    method,
    headers: { Accept: 'application/json', ...headers },
  };
  await kc.applyToHTTPSOptions(options);
  options.agent = undefined;
  options.protocol = url.protocol;
  options.hostname = url.hostname.replace(/^\[|\]$/g, '');
  options.port = url.port;
  options.path = url.pathname + url.search;
  return { mod: url.protocol === 'http:' ? http : https, options };
}

function requestFailed(method: string, path: string, cause: unknown): KubeError {
  const msg = cause instanceof Error ? cause.message : String(cause);
  return new KubeError(
    KubeErrorCode.RequestFailed,
    `${method} ${path} failed before an answer from the API server (${msg}); check that the API server is reachable`,
    { cause, details: { method, path } },
  );
}

function headersOf(res: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * One JSON request. Non-2xx answers throw client-node's `ApiException` (raw body text, so
 * `apiErrorOf` treats our errors and generated-client errors alike); transport failures throw
 * KubeError KUBE_REQUEST_FAILED.
 */
export async function requestJson<T = unknown>(kc: KubeClientConfig, req: KubeRequest): Promise<T> {
  const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
  const headers: Record<string, string> = payload
    ? {
        'Content-Type': req.contentType ?? 'application/json',
        'Content-Length': String(payload.length),
      }
    : {};
  const { mod, options } = await prepare(kc, req.method, req.path, req.query, headers);
  if (req.signal) options.signal = req.signal;
  return new Promise<T>((resolve, reject) => {
    const r = mod.request(options, (res) => readJsonAnswer(res, req, resolve, reject));
    // A deadline for the whole request, as the message says. (ClientRequest.setTimeout is an idle
    // timeout of the socket, and over TLS it fired only after twice its time when the server
    // accepted the connection but never answered.)
    const timeoutMs = req.timeoutMs ?? 30_000;
    const deadline = setTimeout(
      () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    r.on('close', () => clearTimeout(deadline));
    r.on('error', (e) => reject(requestFailed(req.method, req.path, e)));
    r.end(payload);
  });
}

/** Reads the whole answer: its JSON (undefined when empty) for a 2xx, an ApiException otherwise. */
function readJsonAnswer<T>(
  res: http.IncomingMessage,
  req: KubeRequest,
  resolve: (value: T) => void,
  reject: (error: unknown) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('error', (e) => reject(requestFailed(req.method, req.path, e)));
  res.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      reject(new ApiException(status, `${req.method} ${req.path}`, text, headersOf(res)));
      return;
    }
    try {
      resolve((text === '' ? undefined : JSON.parse(text)) as T);
    } catch (e) {
      reject(requestFailed(req.method, req.path, e));
    }
  });
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

export interface WatchHandle {
  /** Closes the stream; `onDone` is not called after abort. */
  abort(): void;
}

export interface WatchRequest {
  path: string;
  query?: QueryParams;
  /** Closes the stream with an error when nothing arrives for this long. */
  idleTimeoutMs: number;
  onEvent(event: WatchEvent): void;
  /** Called once when the stream ends: null for a clean end, the error otherwise. */
  onDone(err: unknown): void;
  /** Aborting closes the stream (or the pending request, which then rejects). */
  signal?: AbortSignal;
}

/**
 * Opens a watch (`?watch=true`, newline-delimited JSON). Resolves once the API server answered
 * 200; a non-200 answer rejects with ApiException (e.g. 410 Gone for a too-old resourceVersion).
 */
export async function openWatch(kc: KubeClientConfig, w: WatchRequest): Promise<WatchHandle> {
  const { mod, options } = await prepare(kc, 'GET', w.path, { ...w.query, watch: true }, {});
  return new Promise<WatchHandle>((resolve, reject) => {
    let aborted = false;
    let finished = false;
    let answered = false;
    /** The end of the watch: rejects the open while unanswered, else tells `onDone`; once, and never after abort. */
    const finish = (err: unknown): void => {
      if (finished || aborted) return;
      finished = true;
      if (!answered) reject(err instanceof ApiException ? err : requestFailed('GET', w.path, err));
      else w.onDone(err);
    };
    const r = mod.request(options, (res) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        readRefusal(res, status, w.path, finish);
        return;
      }
      answered = true;
      resolve(handle);
      // A line that is not a watch event (never from a real API server), or an event the caller
      // cannot take, ends this watch with that error (the caller lists again); nothing is thrown
      // from this socket callback. The request is destroyed without an error: its error event
      // could reach a socket already handed back to the agent.
      streamEvents(
        res,
        w.onEvent,
        () => aborted,
        (e) => {
          finish(e instanceof Error ? e : new Error(String(e)));
          r.destroy();
        },
      );
      res.on('end', () => finish(null));
      res.on('close', () =>
        finish(res.complete ? null : new Error('watch stream closed before its end')),
      );
      res.on('error', finish);
    });
    const abort = (): void => {
      if (aborted) return;
      aborted = true;
      r.destroy();
      if (!answered && !finished) {
        finished = true;
        reject(requestFailed('GET', w.path, new Error('aborted')));
      }
    };
    const handle: WatchHandle = { abort };
    if (w.signal?.aborted) abort();
    w.signal?.addEventListener('abort', abort, { once: true });
    r.on('close', () => w.signal?.removeEventListener('abort', abort));
    closeWhenIdle(r, w.idleTimeoutMs);
    r.on('error', finish);
    r.end();
  });
}

/** A non-200 answer to a watch: its body, as an ApiException, ends it. */
function readRefusal(
  res: http.IncomingMessage,
  status: number,
  path: string,
  finish: (err: unknown) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () =>
    finish(
      new ApiException(
        status,
        `watch ${path}`,
        Buffer.concat(chunks).toString('utf8'),
        headersOf(res),
      ),
    ),
  );
  res.on('error', finish);
}

/**
 * Hands each line of the answer, parsed (parseWatchEvent), to `onEvent`, skipping blank lines and
 * everything once aborted; the first line that fails (unreadable, or `onEvent` throws) goes to
 * `fail` and the rest of the chunk is not read.
 */
function streamEvents(
  res: http.IncomingMessage,
  onEvent: (event: WatchEvent) => void,
  aborted: () => boolean,
  fail: (error: unknown) => void,
): void {
  res.setEncoding('utf8');
  let buf = '';
  res.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line === '' || aborted()) continue;
      try {
        onEvent(parseWatchEvent(line));
      } catch (e) {
        fail(e);
        return;
      }
    }
  });
}

/**
 * One line of a watch answer as a WatchEvent: JSON with a string `type` and an object `object`.
 * Throws the parse error, or an Error saying the event is malformed.
 */
export function parseWatchEvent(line: string): WatchEvent {
  const parsed = JSON.parse(line) as WatchEvent;
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    typeof parsed.type !== 'string' ||
    typeof parsed.object !== 'object' ||
    parsed.object === null
  ) {
    throw new Error(`malformed watch event: ${line.slice(0, 200)}`);
  }
  return parsed;
}

/**
 * Closes the request with an error when nothing is received for `idleTimeoutMs` (an own timer,
 * restarted by every piece of the answer; ClientRequest.setTimeout fired only after twice its time
 * over TLS).
 */
function closeWhenIdle(r: http.ClientRequest, idleTimeoutMs: number): void {
  const idle = setTimeout(
    () => r.destroy(new Error(`watch idle for ${idleTimeoutMs} ms`)),
    idleTimeoutMs,
  );
  r.on('response', (res) => res.on('data', () => idle.refresh()));
  r.on('close', () => clearTimeout(idle));
}
