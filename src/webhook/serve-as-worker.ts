import cluster from 'node:cluster';
import type { Registry } from 'prom-client';
import { isVoeError } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import { createWebhookServer, type WebhookServer } from './create-webhook-server.js';
import type { StartedCaches } from './serve-webhook.js';
import type { Validator } from './validator.js';
import { waitFor } from './wait-for.js';
import { WebhookError } from './webhook-error.js';
import { isPrimaryMessage, type CacheState, type WorkerMessage } from './worker-messages.js';

export interface ServeAsWorkerOptions<C> {
  logger: Logger;
  host: string;
  port: number;
  tls: { certFile: string; keyFile: string };
  startCaches: () => Promise<StartedCaches<C>>;
  createValidators: (caches: C) => Validator[];
  /** How often this worker's cache state is compared with what it last told the primary (default 250 ms). */
  reportIntervalMs?: number;
  /** How long /metrics waits for the primary's aggregated metrics (default 10 s). */
  metricsTimeoutMs?: number;
  /**
   * Listen only once this worker's caches are synced (a replacement of a worker that ended: the
   * pool already serves, and node:cluster hands connections only to workers that listen). Else
   * listen at once and let /readyz say when the caches are synced.
   */
  listenWhenSynced?: boolean;
}

const union = (a: string[], b: string[]): string[] => [...new Set([...a, ...b])].sort();

/**
 * Runs this process as one worker of a pool (startWorkerPool; `voe serve --workers N`): starts
 * its caches and webhook server, listens on the socket the primary shares, tells the primary
 * when it listens and how its caches are, answers its pings and requests for metrics, and serves
 * until the primary says stop. Its /readyz says ready only when every worker's caches are synced,
 * and its /metrics shows all workers' metrics, so a probe or a scrape means the same whichever
 * worker answers it. A start-up failure is sent to the primary (which reports it) and then
 * thrown. At the end it leaves the pool (cluster.worker.disconnect()), so the process exits with
 * its own exit code once nothing else runs. (If the primary goes away first, node:cluster ends
 * the worker at once.)
 */
export async function serveAsWorker<C>(options: ServeAsWorkerOptions<C>): Promise<void> {
  const log = options.logger;
  if (!process.send || !cluster.worker) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      'serveAsWorker runs only in a webhook worker (a node:cluster worker of voe serve --workers).',
    );
  }
  const send = (message: WorkerMessage): Promise<void> =>
    new Promise((resolve) => {
      if (!process.connected) {
        resolve();
        return;
      }
      process.send!(message, undefined, undefined, () => resolve());
    });
  let pool: CacheState = { ready: false, unsynced: [], notServed: [] };
  const pending = new Map<
    number,
    { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }
  >();
  let nextId = 0;
  let registry: Registry | undefined;
  let server: WebhookServer | undefined;
  let drainRequested = false;
  let stopRequested!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stopRequested = resolve;
  });
  const onMessage = (message: unknown): void => {
    if (!isPrimaryMessage(message)) return;
    switch (message.type) {
      case 'voe:pool-caches':
        pool = {
          ready: message.ready,
          unsynced: message.unsynced,
          notServed: message.notServed,
          ...(message.notRead ? { notRead: message.notRead } : {}),
          ...(message.notServing ? { notServing: message.notServing } : {}),
        };
        break;
      case 'voe:metrics': {
        const waiting = pending.get(message.id);
        if (!waiting) return;
        pending.delete(message.id);
        clearTimeout(waiting.timer);
        if (message.text !== undefined) waiting.resolve(message.text);
        else
          waiting.reject(
            new Error(message.error ?? 'the voe serve primary process sent no metrics'),
          );
        break;
      }
      case 'voe:collect-metrics': {
        const id = message.id;
        if (!registry) {
          void send({ type: 'voe:own-metrics', id, error: 'not serving yet' });
          return;
        }
        void registry.getMetricsAsJSON().then(
          (metrics) => send({ type: 'voe:own-metrics', id, metrics }),
          (error: unknown) =>
            send({
              type: 'voe:own-metrics',
              id,
              error: error instanceof Error ? error.message : String(error),
            }),
        );
        break;
      }
      case 'voe:ping':
        void send({ type: 'voe:pong', id: message.id });
        break;
      case 'voe:drain':
        drainRequested = true;
        server?.drain();
        void send({ type: 'voe:drained', id: message.id });
        break;
      case 'voe:stop':
        stopRequested();
        break;
    }
  };
  process.on('message', onMessage);

  const poolMetrics = (): Promise<string> =>
    new Promise((resolve, reject) => {
      if (!process.connected) {
        reject(new Error('the voe serve primary process is gone'));
        return;
      }
      const id = nextId++;
      const timeoutMs = options.metricsTimeoutMs ?? 10_000;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(
          new Error(
            `the voe serve primary process did not send the workers' metrics within ${timeoutMs / 1000} s`,
          ),
        );
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      void send({ type: 'voe:metrics-request', id });
    });

  const cleanups: Array<() => Promise<void>> = [];
  try {
    const started = await options.startCaches();
    cleanups.push(() => started.stop());
    server = createWebhookServer({
      validators: options.createValidators(started.caches),
      tls: options.tls,
      logger: log,
      ready: () => started.ready() && pool.ready,
      cacheStatus: () => ({
        unsynced: union(started.unsynced(), pool.unsynced),
        notServed: union(started.notServed(), pool.notServed),
        notRead: union(started.notRead?.() ?? [], pool.notRead ?? []),
        ...(pool.notServing ? { notServing: pool.notServing } : {}),
      }),
      metricsText: poolMetrics,
    });
    registry = server.registry;
    if (drainRequested) server.drain();
    let reported = '';
    const report = (): void => {
      const notRead = started.notRead?.() ?? [];
      const state: CacheState = {
        ready: started.ready(),
        unsynced: started.unsynced(),
        notServed: started.notServed(),
        ...(notRead.length ? { notRead } : {}),
      };
      const key = JSON.stringify(state);
      if (key === reported) return;
      reported = key;
      void send({ type: 'voe:caches', ...state });
    };
    report();
    const timer = setInterval(report, options.reportIntervalMs ?? 250);
    cleanups.push(async () => clearInterval(timer));
    if (options.listenWhenSynced) {
      log.info('replacing a webhook worker that ended: listening once the caches are synced');
      const stopping = new AbortController();
      void stopped.then(() => stopping.abort());
      if (
        !(await waitFor(
          () => started.ready(),
          Infinity,
          stopping.signal,
          options.reportIntervalMs ?? 250,
        ))
      )
        return;
      report();
    }
    const address = await server.listen(options.port, options.host);
    const listening = server;
    cleanups.push(() => listening.close());
    await send({ type: 'voe:listening', address });
    await stopped;
  } catch (error) {
    await send({
      type: 'voe:failed',
      ...(isVoeError(error) ? { code: error.code } : {}),
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => {
        log.error(
          { error: error instanceof Error ? error.message : String(error) },
          'cleanup failed while stopping the webhook worker',
        );
        // The primary's stop() reports a worker that exits non-zero.
        process.exitCode = 1;
      });
    }
    for (const waiting of pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error('the webhook worker is stopping'));
    }
    process.off('message', onMessage);
    // Leaving the pool on purpose: node:cluster then lets the process end with its own exit code
    // (a plain process.disconnect() in a worker makes it exit 0 at once).
    if (process.connected) cluster.worker.disconnect();
  }
}
