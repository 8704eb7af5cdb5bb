import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** One worker's metrics as prom-client's Registry.getMetricsAsJSON() gives them (what AggregatorRegistry.aggregate takes). */
export type WorkerMetrics = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/**
 * The IPC messages between `voe serve --workers N`'s primary process and its webhook workers
 * (node:cluster). Node's own cluster messages share the channel; every message here has a
 * `voe:` type so each side ignores the rest.
 */

/** The caches' state of one worker, or (sent by the primary) of the whole pool. */
export interface CacheState {
  ready: boolean;
  /** Resources not synced yet. */
  unsynced: string[];
  /** Resources the cluster does not serve, cached as empty. */
  notServed: string[];
  /** Resources watched but not read by the decisions yet (StartedCaches.notRead); absent: none. */
  notRead?: string[];
  /** Of the pool (sent by the primary): the workers started but not serving yet, e.g. "worker 3 (pid 1236) starting, replacing worker 1 (pid 1234)". */
  notServing?: string[];
}

/** Worker -> primary. */
export type WorkerMessage =
  | { type: 'voe:listening'; address: AddressInfo }
  | ({ type: 'voe:caches' } & CacheState)
  | { type: 'voe:metrics-request'; id: number }
  /** This worker's own metrics, asked for by voe:collect-metrics. */
  | { type: 'voe:own-metrics'; id: number; metrics?: WorkerMetrics; error?: string }
  /** Answer to voe:ping: the worker's event loop runs. */
  | { type: 'voe:pong'; id: number }
  /** Answer to voe:drain: every answer of this worker now closes its connection. */
  | { type: 'voe:drained'; id: number }
  /** Start-up failed; the worker exits after sending it. `code` is the error's stable code, if it has one. */
  | { type: 'voe:failed'; code?: string; message: string };

/** Primary -> worker. */
export type PrimaryMessage =
  | ({ type: 'voe:pool-caches' } & CacheState)
  /** Answer to voe:metrics-request: all workers' metrics, aggregated (Prometheus text), or why not. */
  | { type: 'voe:metrics'; id: number; text?: string; error?: string }
  | { type: 'voe:collect-metrics'; id: number }
  | { type: 'voe:ping'; id: number }
  /** The shutdown started (--shutdown-delay): answer with Connection: close from now on (WebhookServer.drain). */
  | { type: 'voe:drain'; id: number }
  /** Stop serving: close the server, stop the caches, exit. */
  | { type: 'voe:stop' };

const WORKER_TYPES = new Set([
  'voe:listening',
  'voe:caches',
  'voe:metrics-request',
  'voe:own-metrics',
  'voe:pong',
  'voe:drained',
  'voe:failed',
]);
const PRIMARY_TYPES = new Set([
  'voe:pool-caches',
  'voe:metrics',
  'voe:collect-metrics',
  'voe:ping',
  'voe:drain',
  'voe:stop',
]);

function typeOf(message: unknown): unknown {
  return typeof message === 'object' && message !== null
    ? (message as { type?: unknown }).type
    : undefined;
}

export function isWorkerMessage(message: unknown): message is WorkerMessage {
  return WORKER_TYPES.has(typeOf(message) as string);
}

export function isPrimaryMessage(message: unknown): message is PrimaryMessage {
  return PRIMARY_TYPES.has(typeOf(message) as string);
}

/**
 * The pool's state from its serving (listening) workers' (undefined: one that has not reported
 * yet, not ready): ready when at least one serves and every serving one is (node:cluster hands
 * connections only to workers that listen); `notServing` names the workers not serving yet. Names
 * sorted, without repeats.
 */
export function poolCacheState(
  serving: readonly (CacheState | undefined)[],
  notServing: readonly string[] = [],
): CacheState {
  const reported = serving.filter((s): s is CacheState => s !== undefined);
  const names = (pick: (s: CacheState) => string[]): string[] =>
    [...new Set(reported.flatMap(pick))].sort();
  const notRead = names((s) => s.notRead ?? []);
  return {
    ready:
      serving.length > 0 && reported.length === serving.length && reported.every((s) => s.ready),
    unsynced: names((s) => s.unsynced),
    notServed: names((s) => s.notServed),
    ...(notRead.length > 0 ? { notRead } : {}),
    ...(notServing.length > 0 ? { notServing: [...notServing] } : {}),
  };
}

/**
 * Environment variable the primary sets ("1") for a worker that replaces one that ended: it
 * listens only once its caches are synced, so no connection reaches it before (the pool already
 * serves; the first workers listen at once and say so on /readyz).
 */
export const WORKER_REPLACEMENT_ENV = 'VOE_WEBHOOK_WORKER_REPLACEMENT';

/** What a worker serves, given by the primary: the serving certificate and key files, and the address. */
export interface WorkerSettings {
  certFile: string;
  keyFile: string;
  host: string;
  port: number;
}

/** Environment variable through which the primary gives each worker its WorkerSettings (JSON). */
export const WORKER_ENV = 'VOE_WEBHOOK_WORKER';

/** The WorkerSettings in WORKER_ENV; undefined when it is not set or not of that shape. */
export function workerSettingsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): WorkerSettings | undefined {
  try {
    const v = JSON.parse(env[WORKER_ENV] ?? '') as Partial<Record<keyof WorkerSettings, unknown>>;
    if (
      typeof v.certFile !== 'string' ||
      typeof v.keyFile !== 'string' ||
      typeof v.host !== 'string' ||
      typeof v.port !== 'number'
    )
      return undefined;
    return { certFile: v.certFile, keyFile: v.keyFile, host: v.host, port: v.port };
  } catch {
    return undefined;
  }
}
