import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry } from 'prom-client';
import type { Logger } from '../log/index.js';
import { WebhookError } from './webhook-error.js';
import { isWorkerMessage, poolCacheState, type CacheState, type PrimaryMessage, type WorkerMessage } from './worker-messages.js';

export interface WorkerPoolOptions {
  /** How many workers (node:cluster processes sharing the listening socket). */
  count: number;
  /** The script each worker runs, and its arguments (`voe serve` runs itself again, with its own arguments). */
  exec: string;
  args: string[];
  /** Added to each worker's environment. */
  env?: Record<string, string>;
  logger: Logger;
  /** Aborting it during start-up stops the workers and rejects with WEBHOOK_START_ABORTED. */
  signal?: AbortSignal;
  /** How long start-up waits for every worker to listen (default 60 s). */
  listenTimeoutMs?: number;
  /** How long stop() waits for a worker to close its connections and exit before killing it (default 10 s). */
  stopTimeoutMs?: number;
}

export interface WorkerPool {
  /** Where the workers listen (they share the one socket the primary holds). */
  readonly address: AddressInfo;
  readonly pids: readonly number[];
  /** The caches of all workers: ready when every worker's are synced. */
  caches(): CacheState;
  /** Prometheus text of all workers' metrics, aggregated by prom-client (counters and histograms summed). */
  metricsText(): Promise<string>;
  /** Resolves, with why, when a worker ends without stop() having been called: the pool no longer serves fully. */
  readonly ended: Promise<WebhookError>;
  /** Asks every worker to stop (close its server, stop its caches), waits for them to exit, kills any that do not. Safe to call twice. */
  stop(): Promise<void>;
}

interface Member { worker: Worker; address?: AddressInfo; caches?: CacheState; failure?: { code?: string; message: string } }

function exitText(code: number | null, signal: string | null): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}

/**
 * Starts `count` webhook workers with node:cluster and resolves once every one listens. The
 * workers share the listening socket (the primary hands each new connection to the next worker
 * in turn); each runs its own informer caches and webhook server (serveAsWorker). The primary
 * keeps the pool's view for the workers: whether all caches are synced (each worker's /readyz
 * says ready only then) and the metrics of all (each worker's /metrics shows them).
 */
export async function startWorkerPool(options: WorkerPoolOptions): Promise<WorkerPool> {
  const log = options.logger;
  // Constructing it in the primary makes prom-client listen for the workers' metric answers.
  const aggregator = new AggregatorRegistry();
  const members = new Map<number, Member>();
  let stopping: Promise<void> | undefined;
  let lastBroadcast = '';
  let resolveEnded!: (error: WebhookError) => void;
  const ended = new Promise<WebhookError>((resolve) => { resolveEnded = resolve; });
  let startUp: { resolve: () => void; reject: (error: WebhookError) => void } | undefined;

  const send = (worker: Worker, message: PrimaryMessage): void => {
    if (worker.isConnected()) worker.send(message);
  };
  const caches = (): CacheState => poolCacheState([...members.values()].flatMap((m) => (m.caches ? [m.caches] : [])), options.count);
  const broadcastCaches = (): void => {
    const state = caches();
    const key = JSON.stringify(state);
    if (key === lastBroadcast) return;
    lastBroadcast = key;
    for (const member of members.values()) send(member.worker, { type: 'voe:pool-caches', ...state });
  };

  const onMessage = (member: Member, message: WorkerMessage): void => {
    switch (message.type) {
      case 'voe:listening':
        member.address = message.address;
        if ([...members.values()].every((m) => m.address) && members.size === options.count) startUp?.resolve();
        break;
      case 'voe:caches':
        member.caches = { ready: message.ready, unsynced: message.unsynced, notServed: message.notServed };
        broadcastCaches();
        break;
      case 'voe:metrics-request':
        aggregator.clusterMetrics().then(
          (text) => send(member.worker, { type: 'voe:metrics', id: message.id, text }),
          (error: unknown) => send(member.worker, { type: 'voe:metrics', id: message.id, error: error instanceof Error ? error.message : String(error) }),
        );
        break;
      case 'voe:failed':
        member.failure = { ...(message.code === undefined ? {} : { code: message.code }), message: message.message };
        break;
    }
  };

  const onExit = (member: Member, code: number | null, signal: string | null): void => {
    if (stopping) return;
    const { id, process: { pid } } = member.worker;
    const why = member.failure
      ? `could not start: ${member.failure.code ? `${member.failure.code}: ` : ''}${member.failure.message}`
      : `${exitText(code, signal)}${member.address ? ' while serving' : ' during start-up'}`;
    const error = new WebhookError('WEBHOOK_WORKER_FAILED', `Webhook worker ${id} (pid ${pid}) ${why}`);
    if (startUp) { startUp.reject(error); return; }
    log.error({ worker: id, workerPid: pid, code, signal }, 'webhook worker ended; stopping the webhook');
    resolveEnded(error);
  };

  const stop = (): Promise<void> => {
    stopping ??= Promise.all([...members.values()].map(({ worker, address }) => new Promise<void>((resolve) => {
      if (worker.isDead()) { resolve(); return; }
      const kill = setTimeout(() => {
        log.warn({ worker: worker.id, pid: worker.process.pid }, 'webhook worker did not stop in time; killing it');
        worker.process.kill('SIGKILL');
      }, options.stopTimeoutMs ?? 10_000);
      worker.once('exit', () => { clearTimeout(kill); resolve(); });
      // A worker still starting may not listen for messages yet; it has changed nothing outside itself.
      if (address && worker.isConnected()) send(worker, { type: 'voe:stop' }); else worker.process.kill('SIGKILL');
    }))).then(() => undefined);
    return stopping;
  };

  cluster.setupPrimary({ exec: options.exec, args: options.args });
  const started = new Promise<void>((resolve, reject) => { startUp = { resolve, reject }; });
  // A rejection nobody awaits yet (a worker failing at once) must not become an unhandled rejection.
  started.catch(() => undefined);
  for (let i = 0; i < options.count; i++) {
    const worker = cluster.fork(options.env ?? {});
    const member: Member = { worker };
    members.set(worker.id, member);
    worker.on('message', (message: unknown) => { if (isWorkerMessage(message)) onMessage(member, message); });
    worker.on('exit', (code: number | null, signal: string | null) => onExit(member, code, signal));
    // An IPC send to a worker that just died; its exit says what happened.
    worker.on('error', (error) => log.debug({ worker: worker.id, error: error.message }, 'webhook worker channel error'));
  }

  const listenTimeoutMs = options.listenTimeoutMs ?? 60_000;
  const timer = setTimeout(() => {
    const waiting = [...members.values()].filter((m) => !m.address).map((m) => m.worker.id);
    startUp?.reject(new WebhookError('WEBHOOK_WORKER_FAILED',
      `Webhook workers ${waiting.join(', ')} did not listen within ${Math.round(listenTimeoutMs / 1000)} s; the log says what they were doing.`));
  }, listenTimeoutMs);
  const onAbort = (): void => startUp?.reject(new WebhookError('WEBHOOK_START_ABORTED', 'The webhook was stopped while its workers were starting; they were stopped.'));
  if (options.signal?.aborted) onAbort(); else options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await started;
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    startUp = undefined;
  }
  const first = [...members.values()][0]!;
  log.info({ workers: options.count, pids: [...members.values()].map((m) => m.worker.process.pid) }, 'webhook workers listening');
  return {
    address: first.address!,
    pids: [...members.values()].map((m) => m.worker.process.pid!),
    caches,
    metricsText: () => aggregator.clusterMetrics(),
    ended,
    stop,
  };
}
