import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/** One request the proxy was asked, in arrival order. */
export interface ProxiedRequest {
  method: string;
  /** URL path without the query. */
  path: string;
  /** `?watch=true`. */
  watch: boolean;
  /** The status the client got (the API server's, or the injected one); undefined until answered. */
  status?: number;
  /** Answered by an injected fault (a Status the API server never sent, a cut or altered watch). */
  injected: boolean;
}

/** Which requests a fault applies to: the path (exact, or a pattern), and only watches or only other requests when told. */
export interface FaultMatch {
  path: string | RegExp;
  watch?: boolean;
  /** Only the request method (e.g. 'POST'). */
  method?: string;
  /** Only the first `times` matching requests meet the fault; the later ones pass through. */
  times?: number;
}

/**
 * What the proxy does instead of passing the answer through:
 * - `answer`: answers with this HTTP status and a Status body itself (the API server is not asked);
 * - `cutAfterEvents`: passes a watch through and ends it cleanly (as the API server ends a watch
 *   at its timeout) after this many events (bookmarks not counted; 0: right after the headers);
 * - `prependLine`: passes a watch through, with this line sent before the API server's first event;
 * - `answerAfterForwarding`: passes the request to the API server, waits for its answer, drops it
 *   and answers this status instead (as the API server does itself when a write outlives its
 *   request timeout: 504, "the request may still be processing", while the write was stored).
 * `cutAfterEvents` and `prependLine` apply to watches answered 200 only; other requests matching them pass through.
 */
export type Fault =
  | { answer: number; message?: string }
  | { cutAfterEvents: number }
  | { prependLine: string }
  | { answerAfterForwarding: number; message?: string };

export interface FaultProxy {
  /** Talks to the proxy (plain HTTP on 127.0.0.1, no credentials: the proxy adds the real ones). */
  readonly kubeConfig: KubeConfig;
  readonly requests: readonly ProxiedRequest[];
  /**
   * From now on, requests matching `match` meet `fault` (the latest matching fault wins). Watches
   * already open that match are ended cleanly, so the client's next request meets the fault too.
   */
  inject(match: FaultMatch, fault: Fault): void;
  /** Removes every fault: all requests pass through again. */
  heal(): void;
  /** Ends every open request and stops listening. */
  close(): Promise<void>;
}

/** Connection-level headers a proxy does not pass on. */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
];

function withoutHopByHop(headers: IncomingHttpHeaders, drop: string[] = []): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined && !HOP_BY_HOP.includes(k) && !drop.includes(k)) out[k] = v;
  return out;
}

function matches(
  match: FaultMatch,
  request: { method: string; path: string; watch: boolean },
): boolean {
  if (match.watch !== undefined && match.watch !== request.watch) return false;
  if (match.method !== undefined && match.method !== request.method) return false;
  return typeof match.path === 'string'
    ? match.path === request.path
    : match.path.test(request.path);
}

function isBookmark(line: string): boolean {
  try {
    return (JSON.parse(line) as { type?: unknown }).type === 'BOOKMARK';
  } catch {
    return false;
  }
}

/**
 * A reverse proxy in front of the real API server `upstream` names, for what only happens with
 * something between a client and the API server (kubernetes#115241: a proxy answering a spurious
 * 404; a 500; a watch cut short or carrying a line no API server writes). Every request is
 * forwarded to the API server over HTTPS with the kubeconfig's CA and client credentials, and its
 * answer passed through, except where a test injected a fault. Closed after the test.
 */
export async function startFaultProxy(upstream: KubeConfig): Promise<FaultProxy> {
  const cluster = upstream.getCurrentCluster();
  if (!cluster) throw new Error('the upstream kubeconfig has no current cluster');
  const target = new URL(cluster.server);
  const credentials: RequestOptions = {};
  await upstream.applyToHTTPSOptions(credentials);
  // One agent of our own (client-node made one per call), destroyed on close: no socket outlives the test.
  const agent = new Agent({
    keepAlive: true,
    ca: credentials.ca,
    cert: credentials.cert,
    key: credentials.key,
    ...(credentials.rejectUnauthorized === undefined
      ? {}
      : { rejectUnauthorized: credentials.rejectUnauthorized }),
  });
  const authHeaders = withoutHopByHop((credentials.headers ?? {}) as IncomingHttpHeaders);

  const requests: ProxiedRequest[] = [];
  const faults: Array<{ match: FaultMatch; fault: Fault; met: number }> = [];
  const openWatches = new Set<{ path: string; watch: boolean; end: () => void }>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const watch = ['true', '1'].includes(url.searchParams.get('watch') ?? '');
    const record: ProxiedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      watch,
      injected: false,
    };
    // Faults injected from here on: a watch whose answer arrives after one of them was injected is cut as it opens, as inject() cuts those already open.
    const faultsBefore = faults.length;
    requests.push(record);
    const found = faults.findLast(
      (f) => matches(f.match, record) && (f.match.times === undefined || f.met < f.match.times),
    );
    if (found) found.met++;
    const fault = found?.fault;
    const status = (code: number, message: string): string =>
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message,
        reason:
          { 403: 'Forbidden', 404: 'NotFound', 500: 'InternalError', 504: 'Timeout' }[code] ??
          'Unknown',
        code,
      });

    if (fault && 'answer' in fault) {
      record.status = fault.answer;
      record.injected = true;
      const message =
        fault.message ??
        (fault.answer === 404
          ? 'the server could not find the requested resource'
          : `injected ${fault.answer}`);
      req.resume();
      res
        .writeHead(fault.answer, { 'content-type': 'application/json' })
        .end(status(fault.answer, message));
      return;
    }

    const up = httpsRequest({
      protocol: 'https:',
      hostname: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port,
      method: req.method,
      path: req.url,
      agent,
      headers: { ...withoutHopByHop(req.headers, ['host']), ...authHeaders, host: target.host },
    });
    let finished = false;
    const stop = (): void => {
      if (finished) return;
      finished = true;
      if (!res.writableEnded) res.end();
      up.destroy();
    };
    // The client went away (a cut it made itself, an abort): so does the request to the API server.
    res.on('close', () => {
      if (res.writableFinished) return;
      finished = true;
      up.destroy();
    });
    up.on('error', () => {
      if (finished) return;
      if (!res.headersSent) {
        record.status = 502;
        res.writeHead(502, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            message: 'fault proxy: the API server could not be reached',
            code: 502,
          }),
        );
      } else {
        res.destroy();
      }
    });
    up.on('response', (upRes) => {
      upRes.on('error', () => res.destroy());
      if (fault && 'answerAfterForwarding' in fault) {
        // The API server did the work; its answer is lost on the way.
        upRes.resume();
        upRes.on('end', () => {
          record.status = fault.answerAfterForwarding;
          record.injected = true;
          res
            .writeHead(fault.answerAfterForwarding, { 'content-type': 'application/json' })
            .end(
              status(
                fault.answerAfterForwarding,
                fault.message ??
                  `injected ${fault.answerAfterForwarding} after the API server answered`,
              ),
            );
        });
        return;
      }
      record.status = upRes.statusCode ?? 0;
      if (!watch || record.status !== 200) {
        res.writeHead(record.status, withoutHopByHop(upRes.headers));
        upRes.pipe(res);
        return;
      }
      // A watch: passed on line by line (one event a line), so that it can be cut or altered.
      const open = { path: record.path, watch, end: stop };
      if (faults.slice(faultsBefore).some((f) => matches(f.match, { ...open, method: 'GET' }))) {
        upRes.resume();
        res.writeHead(200, withoutHopByHop(upRes.headers, ['content-length']));
        stop();
        return;
      }
      openWatches.add(open);
      res.on('close', () => openWatches.delete(open));
      res.writeHead(200, withoutHopByHop(upRes.headers, ['content-length']));
      if (fault && 'prependLine' in fault) {
        record.injected = true;
        res.write(`${fault.prependLine}\n`);
      }
      const cutAfter = fault && 'cutAfterEvents' in fault ? fault.cutAfterEvents : undefined;
      const cut = (): void => {
        record.injected = true;
        stop();
      };
      let events = 0;
      if (cutAfter === 0) {
        cut();
        return;
      }
      let buffered = '';
      upRes.setEncoding('utf8');
      upRes.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while (!finished && (nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          res.write(`${line}\n`);
          if (line.trim() !== '' && !isBookmark(line)) events++;
          if (cutAfter !== undefined && events >= cutAfter) cut();
        }
      });
      upRes.on('end', () => {
        if (!finished && buffered !== '') res.write(buffered);
        stop();
      });
    });
    req.pipe(up);
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      {
        name: 'fault-proxy',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'fault-proxy' }],
    contexts: [{ name: 'fault-proxy', cluster: 'fault-proxy', user: 'fault-proxy' }],
    currentContext: 'fault-proxy',
  });

  return {
    kubeConfig,
    requests,
    inject(match, fault) {
      faults.push({ match, fault, met: 0 });
      for (const open of [...openWatches])
        if (matches(match, { ...open, method: 'GET' })) open.end();
    },
    heal() {
      faults.length = 0;
    },
    async close() {
      for (const open of [...openWatches]) open.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
