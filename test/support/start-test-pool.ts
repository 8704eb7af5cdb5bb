// The worker-pool tests' shared pieces (test/integration/webhook/worker-pool*.test.ts): a pool of
// two real worker processes (fixtures/pool-worker.ts) and what the tests observe of it.
import cluster from 'node:cluster';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  startWorkerPool,
  type WorkerPool,
  type WorkerPoolOptions,
} from '../../src/webhook/index.js';
import { captureLogger } from './capture-logger.js';
import type { DeferredClock } from './deferred-clock.js';
import { writeServingFiles, type ServingFiles } from './webhook-client.js';

const WORKER = fileURLToPath(new URL('./fixtures/pool-worker.js', import.meta.url));

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * How long a wait that includes a worker's start may last before the test gives up: a worker
 * reported its caches 16-21 s after its fork under a load average of 15-18 on 2 cores (measured);
 * only a broken run waits this long.
 */
export const START_MS = 120_000;

/**
 * The `voe:caches` reports of the workers, as the pool takes them in: node:cluster emits a
 * worker's message on `cluster` from the listener that fork() adds first, in the same turn as the
 * pool's own listener, so a report seen here is one the pool has.
 */
export function cacheReports(t: {
  after: (fn: () => void) => void;
}): Array<{ pid: number; ready: boolean; unsynced: string[] }> {
  const reports: Array<{ pid: number; ready: boolean; unsynced: string[] }> = [];
  const onMessage = (
    worker: { process: { pid?: number } },
    message: { type?: unknown; ready?: boolean; unsynced?: string[] },
  ): void => {
    if (message?.type === 'voe:caches')
      reports.push({
        pid: worker.process.pid!,
        ready: message.ready!,
        unsynced: message.unsynced!,
      });
  };
  cluster.on('message', onMessage);
  t.after(() => {
    cluster.off('message', onMessage);
  });
  return reports;
}

export type PoolTuning = Pick<
  WorkerPoolOptions,
  | 'heartbeatIntervalMs'
  | 'heartbeatTimeoutMs'
  | 'stopTimeoutMs'
  | 'metricsTimeoutMs'
  | 'restartLimit'
  | 'replacementTimeoutMs'
  | 'replacementBackoff'
>;

/**
 * Starts a pool of two fixture workers (stopped after the test); `ready` writes the file that
 * marks worker 1's caches synced, `env` goes to every worker (the fixture's POOL_* switches).
 */
export async function startTestPool(
  t: { after: (fn: () => Promise<void>) => void },
  options: {
    ready?: boolean;
    env?: Record<string, string>;
    signal?: AbortSignal;
    tuning?: PoolTuning;
    clock?: DeferredClock;
  } = {},
): Promise<{
  pool: WorkerPool;
  files: ServingFiles;
  readyFile: string;
  logs: ReturnType<typeof captureLogger>;
}> {
  const files = await writeServingFiles();
  const readyFile = join(files.dir, 'ready');
  if (options.ready) await writeFile(readyFile, '');
  const logs = captureLogger();
  // Before the pool's stop: its timers (stop() kills on one) run in real time again.
  const clock = options.clock;
  if (clock) t.after(async () => clock.release());
  t.after(() => files.cleanup());
  const pool = await startWorkerPool({
    count: 2,
    exec: WORKER,
    args: [files.certFile, files.keyFile, readyFile],
    logger: logs.logger,
    listenTimeoutMs: START_MS,
    ...(options.env ? { env: options.env } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...options.tuning,
    ...(clock ? { clock } : {}),
  });
  t.after(() => pool.stop().catch(() => undefined));
  return { pool, files, readyFile, logs };
}
