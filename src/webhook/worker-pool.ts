import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { realClock, type Clock } from '../kube/index.js';
import { aggregatePoolMetrics } from './aggregate-pool-metrics.js';
import { retireWorkerMetrics } from './retire-worker-metrics.js';
import { isVoeError } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import { WebhookError } from './webhook-error.js';
import {
  isWorkerMessage,
  poolCacheState,
  WORKER_REPLACEMENT_ENV,
  type CacheState,
  type PrimaryMessage,
  type WorkerMessage,
  type WorkerMetrics,
} from './worker-messages.js';

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
  /**
   * How long a replacement (of a worker that ended) may take to start serving, i.e. to sync its
   * caches and listen, before it is killed and counted as an end (default 120 s, the time
   * `voe serve --dev` gives the first caches to sync).
   */
  replacementTimeoutMs?: number;
  /** How long stop() waits for a worker to close its connections and exit before killing it (default 10 s). */
  stopTimeoutMs?: number;
  /** How long metricsText() waits for every worker's metrics (default 3 s). */
  metricsTimeoutMs?: number;
  /** How often each serving worker is asked to answer (default 5 s)... */
  heartbeatIntervalMs?: number;
  /** ...and how long it may go without answering before it counts as hung and is killed (default 30 s; time this process did not run does not count). */
  heartbeatTimeoutMs?: number;
  /**
   * A worker that ends once the pool serves is replaced, unless more than `ends` workers ended
   * within `windowMs` (a crash loop): then the pool gives up (`ended`). Default 3 within 60 s.
   */
  restartLimit?: { ends: number; windowMs: number };
  /**
   * A replacement that ended before it served (its caches did not sync within
   * replacementTimeoutMs, or it could not start) is followed by the next one only after this
   * delay, doubled at each such end up to `maxMs`, and none again once a replacement serves
   * (default 10 s, at most 5 min). So a cause that outlasts a few tries (RBAC, an API server out
   * of reach) does not have a new worker list the whole cluster again every replacementTimeoutMs.
   * These ends still count against restartLimit; a worker that ends while serving is replaced at once.
   */
  replacementBackoff?: { initialMs: number; maxMs: number };
  /** The timers of the timeouts above (tests); the heartbeat runs on real time. */
  clock?: Clock;
}

/** Default WorkerPoolOptions.restartLimit: more than 3 ends within 60 s stop the pool. */
export const DEFAULT_RESTART_LIMIT = { ends: 3, windowMs: 60_000 } as const;

/** Default WorkerPoolOptions.replacementBackoff: 10 s after the first replacement that did not serve, doubling up to 5 min. */
export const DEFAULT_REPLACEMENT_BACKOFF = { initialMs: 10_000, maxMs: 300_000 } as const;

export interface WorkerPool {
  /** Where the workers listen (they share the one socket the primary holds). */
  readonly address: AddressInfo;
  /** The pids of the workers that serve (listen) now. */
  readonly pids: readonly number[];
  /**
   * The caches of the workers that serve (node:cluster hands connections only to workers that
   * listen): ready when at least one serves and every serving worker's caches are synced;
   * `notServing` names the workers started but not serving yet (a replacement syncing its caches).
   */
  caches(): CacheState;
  /**
   * Prometheus text of all workers' metrics and the first process's own default (process_*,
   * nodejs_*) metrics, aggregated by aggregatePoolMetrics (counters, histograms and most gauges
   * summed; limits and event loop lag the largest), plus the counters and histograms the workers
   * that ended last sent (retireWorkerMetrics), so none goes back when a worker is replaced.
   * Rejects, naming it, when a worker does not send its metrics in time: a partial sum would look
   * like counters going back.
   */
  metricsText(): Promise<string>;
  /**
   * The shutdown started: every worker answers with `Connection: close` from now on
   * (WebhookServer.drain). Resolves once each worker said so (or did not within the metrics
   * timeout: a worker that does not answer is the heartbeat's business). Safe to call twice.
   */
  drain(): Promise<void>;
  /**
   * Resolves, with why, when the pool stops serving by itself: more workers ended (exited, or hung
   * and killed) than restartLimit allows, or a worker ended while draining (it is not replaced
   * then; the others go on). A worker that ends otherwise is replaced, which `ended` does not report.
   */
  readonly ended: Promise<WebhookError>;
  /**
   * Asks every worker to stop (close its server, stop its caches), waits for them to exit, kills
   * any that do not. Rejects, after all are gone, naming the workers that had to be killed or
   * exited with an error. Safe to call twice.
   */
  stop(): Promise<void>;
}

interface Member {
  worker: Worker;
  /** The member this one replaces. */
  replaces?: { id: number; pid: number | undefined };
  address?: AddressInfo;
  caches?: CacheState;
  failure?: { code?: string; message: string };
  /** The metrics it last sent (each metricsText() asks every serving worker), and for which request. */
  lastMetrics?: { id: number; metrics: WorkerMetrics };
  /** Kills a replacement that does not start serving in time (WorkerPoolOptions.replacementTimeoutMs); a clock's handle. */
  startTimer?: unknown;
  /** Last time it answered a ping (or started listening). */
  lastPong: number;
  gone: boolean;
}

function exitText(code: number | null, signal: string | null): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}

const nameOf = (member: Member): string =>
  `Webhook worker ${member.worker.id} (pid ${member.worker.process.pid})`;

/** What /readyz says of a worker that does not serve yet. */
const notServingText = (member: Member): string =>
  `worker ${member.worker.id} (pid ${member.worker.process.pid}) starting` +
  `${member.replaces ? `, replacing worker ${member.replaces.id} (pid ${member.replaces.pid})` : ''}`;

/**
 * The Node options of a worker: this process's, with V8's garbage collector on the worker's own
 * thread (--single-threaded-gc). Workers are meant one per vCPU, so no core is left for GC helper
 * threads: their parallel scavenges and concurrent marking then only take turns with the other
 * workers' requests. Measured with two workers on the 2-vCPU bench machine under wrk: 2–13 µs less
 * CPU per review in each of five A/B runs (docs/performance.md, session 27).
 */
function workerExecArgv(execArgv: readonly string[]): string[] {
  return execArgv.includes(SINGLE_THREADED_GC) ? [...execArgv] : [...execArgv, SINGLE_THREADED_GC];
}

const SINGLE_THREADED_GC = '--single-threaded-gc';

/**
 * Starts `count` webhook workers with node:cluster and resolves once every one listens. The
 * workers share the listening socket (the primary hands each new connection to the next worker
 * in turn, among those that listen); each runs its own informer caches and webhook server
 * (serveAsWorker). The primary keeps the pool's view for the workers: whether the serving
 * workers' caches are synced (each worker's /readyz says ready only then) and the metrics of all
 * (each worker's /metrics shows them). It also pings each serving worker: one that stops
 * answering (a busy loop, SIGSTOP) is killed. A worker that ends during start-up fails the
 * start-up; once serving, an ended worker is replaced by a new one, which listens only once its
 * caches are synced (WORKER_REPLACEMENT_ENV), so no connection reaches it before (one that does
 * not within replacementTimeoutMs is killed, an end too); more ends than restartLimit allows stop
 * the pool (`ended`).
 */
export async function startWorkerPool(options: WorkerPoolOptions): Promise<WorkerPool> {
  const log = options.logger;
  const clock = options.clock ?? realClock;
  const members = new Map<number, Member>();
  let stopping: Promise<void> | undefined;
  let draining: Promise<void> | undefined;
  let lastBroadcast = '';
  let resolveEnded!: (error: WebhookError) => void;
  const ended = new Promise<WebhookError>((resolve) => {
    resolveEnded = resolve;
  });
  let startUp: { resolve: () => void; reject: (error: WebhookError) => void } | undefined;
  let nextId = 0;
  /** Answers awaited from workers (metrics, pongs), by message id. */
  const waiting = new Map<number, (message: WorkerMessage) => void>();
  // This process routes every connection and holds part of the memory: its process metrics count too.
  const own = new Registry();
  collectDefaultMetrics({ register: own });
  /**
   * The counters and histograms of the workers that ended, as each last sent them
   * (retireWorkerMetrics): part of every later aggregate, so none goes back when a worker is replaced.
   */
  let retired: WorkerMetrics = [];

  const send = (worker: Worker, message: PrimaryMessage): void => {
    if (worker.isConnected()) worker.send(message);
  };
  const live = (): Member[] => [...members.values()].filter((m) => !m.gone);
  const serving = (): Member[] => live().filter((m) => m.address);
  /** Replacements waiting for their backoff (replacementBackoff) to start: their timers and what /readyz says of them. */
  const waitingReplacements = new Map<unknown, string>();
  const caches = (): CacheState =>
    poolCacheState(
      serving().map((m) => m.caches),
      [
        ...live()
          .filter((m) => !m.address)
          .map(notServingText),
        ...waitingReplacements.values(),
      ],
    );
  const broadcastCaches = (): void => {
    const state = caches();
    const key = JSON.stringify(state);
    if (key === lastBroadcast) return;
    lastBroadcast = key;
    for (const member of live()) send(member.worker, { type: 'voe:pool-caches', ...state });
  };

  /** Each serving worker's own metrics, aggregated; rejects naming the first worker that did not answer in time. */
  const metricsText = async (): Promise<string> => {
    const timeoutMs = options.metricsTimeoutMs ?? 3_000;
    const counted = serving();
    // A worker that ends meanwhile is left out, as one that ended before (undefined); its replacement counts as starting.
    const workers = Promise.all(
      counted.map(
        (member) =>
          new Promise<WorkerMetrics | undefined>((resolve, reject) => {
            const id = nextId++;
            const onExit = (): void => {
              clock.clearTimeout(timer);
              waiting.delete(id);
              resolve(undefined);
            };
            const timer = clock.setTimeout(() => {
              waiting.delete(id);
              member.worker.off('exit', onExit);
              reject(
                new WebhookError(
                  'WEBHOOK_WORKER_FAILED',
                  `${nameOf(member)} did not send its metrics within ${timeoutMs / 1000} s; no metrics are answered rather than a partial sum.`,
                ),
              );
            }, timeoutMs);
            member.worker.once('exit', onExit);
            waiting.set(id, (message) => {
              clock.clearTimeout(timer);
              member.worker.off('exit', onExit);
              if (message.type === 'voe:own-metrics' && message.metrics) {
                // Kept for when it ends (onExit retires it); an older answer arriving late does not replace a newer one.
                if (!member.gone && (member.lastMetrics?.id ?? -1) < id)
                  member.lastMetrics = { id, metrics: message.metrics };
                resolve(message.metrics);
              } else
                reject(
                  new WebhookError(
                    'WEBHOOK_WORKER_FAILED',
                    `${nameOf(member)} could not read its metrics: ${message.type === 'voe:own-metrics' ? message.error : 'no answer'}`,
                  ),
                );
            });
            send(member.worker, { type: 'voe:collect-metrics', id });
          }),
      ),
    );
    const [primary, answers] = await Promise.all([own.getMetricsAsJSON(), workers]);
    // A worker that ended since it answered counts through `retired` (its last answer), not twice.
    const all = answers.filter(
      (metrics, i): metrics is WorkerMetrics => metrics !== undefined && !counted[i]!.gone,
    );
    const starting = live().filter((m) => !m.address).length;
    const states = [
      {
        name: 'voe_webhook_workers',
        type: 'gauge',
        aggregator: 'first',
        help: 'Webhook worker processes of voe serve --workers, by state: serving (listening; counted in these metrics) or starting (a replacement syncing its caches).',
        values: [
          { labels: { state: 'serving' }, value: all.length },
          { labels: { state: 'starting' }, value: starting },
        ],
      },
    ] as unknown as WorkerMetrics;
    return await aggregatePoolMetrics([primary, states, retired, ...all]);
  };

  const onMessage = (member: Member, message: WorkerMessage): void => {
    switch (message.type) {
      case 'voe:listening':
        clock.clearTimeout(member.startTimer);
        member.address = message.address;
        member.lastPong = Date.now();
        broadcastCaches();
        // A replacement that synced while the pool drains: it answers as the others do.
        if (draining) send(member.worker, { type: 'voe:drain', id: nextId++ });
        if (member.replaces) {
          failedStarts = 0;
          log.info(
            {
              worker: member.worker.id,
              workerPid: member.worker.process.pid,
              replaced: member.replaces.id,
              replacedPid: member.replaces.pid,
            },
            'webhook worker replaced: the new one serves (its caches are synced)',
          );
        }
        if (members.size === options.count && [...members.values()].every((m) => m.address))
          startUp?.resolve();
        break;
      case 'voe:caches':
        member.caches = {
          ready: message.ready,
          unsynced: message.unsynced,
          notServed: message.notServed,
          ...(message.notRead ? { notRead: message.notRead } : {}),
        };
        broadcastCaches();
        break;
      case 'voe:metrics-request':
        metricsText().then(
          (text) => send(member.worker, { type: 'voe:metrics', id: message.id, text }),
          (error: unknown) =>
            send(member.worker, {
              type: 'voe:metrics',
              id: message.id,
              error: isVoeError(error) ? `${error.code}: ${error.message}` : String(error),
            }),
        );
        break;
      case 'voe:own-metrics':
      case 'voe:drained':
      case 'voe:pong': {
        member.lastPong = Date.now();
        const answer = waiting.get(message.id);
        waiting.delete(message.id);
        answer?.(message);
        break;
      }
      case 'voe:failed':
        member.failure = {
          ...(message.code === undefined ? {} : { code: message.code }),
          message: message.message,
        };
        break;
    }
  };

  /** Why a member was killed: the heartbeat found it hung, or (a replacement) it did not start serving in time. */
  let hungWhy: Map<Member, string> | undefined;
  const limit = options.restartLimit ?? DEFAULT_RESTART_LIMIT;
  /** The ends since the pool serves, within limit.windowMs: when, and what (for the message when the pool gives up). */
  let recentEnds: Array<{ at: number; what: string }> = [];
  let gaveUp = false;
  const backoff = options.replacementBackoff ?? DEFAULT_REPLACEMENT_BACKOFF;
  /** Replacements in a row that ended before they served (see replacementBackoff). */
  let failedStarts = 0;
  const onExit = (member: Member, code: number | null, signal: string | null): void => {
    member.gone = true;
    clock.clearTimeout(member.startTimer);
    // What it counted until its last answer stays counted; what it counted after is lost with it.
    if (member.lastMetrics) retired = retireWorkerMetrics(retired, member.lastMetrics.metrics);
    delete member.lastMetrics;
    broadcastCaches();
    if (stopping || gaveUp) return;
    const state = startUp
      ? ' during start-up'
      : draining
        ? ' while draining'
        : member.address
          ? ' while serving'
          : ' while starting';
    const why = member.failure
      ? `could not start: ${member.failure.code ? `${member.failure.code}: ` : ''}${member.failure.message}`
      : (hungWhy?.get(member) ?? `${exitText(code, signal)}${state}`);
    const error = new WebhookError('WEBHOOK_WORKER_FAILED', `${nameOf(member)} ${why}`);
    if (startUp) {
      startUp.reject(error);
      return;
    }
    // Serving, the pool forgets what ended (a replacement takes its place).
    members.delete(member.worker.id);
    hungWhy?.delete(member);
    const fields = {
      worker: member.worker.id,
      workerPid: member.worker.process.pid,
      code,
      signal,
      why,
    };
    if (draining) {
      // Stopping anyway: a new worker would only be stopped again. The others go on draining; the exit says it.
      log.error(
        fields,
        'webhook worker ended while draining; not replaced, the others go on answering',
      );
      gaveUp = true;
      resolveEnded(error);
      return;
    }
    const now = Date.now();
    recentEnds = [
      ...recentEnds.filter((end) => now - end.at < limit.windowMs),
      { at: now, what: `${nameOf(member)} ${why}` },
    ];
    if (recentEnds.length > limit.ends) {
      log.error(fields, 'webhook worker ended; too many ends, stopping the webhook');
      gaveUp = true;
      resolveEnded(
        new WebhookError(
          'WEBHOOK_WORKER_FAILED',
          `${recentEnds.length} webhook workers ended within ${limit.windowMs / 1000} s ` +
            `(more than ${limit.ends}: a crash loop, not replaced any more): ${recentEnds.map((end) => end.what).join('; ')}`,
        ),
      );
      return;
    }
    const replaces = { id: member.worker.id, pid: member.worker.process.pid };
    const delayMs =
      member.replaces && !member.address
        ? Math.min(backoff.maxMs, backoff.initialMs * 2 ** failedStarts++)
        : 0;
    if (delayMs <= 0) {
      replace(
        replaces,
        fields,
        'error',
        'webhook worker ended; replacing it (the new one serves once its caches are synced)',
      );
      return;
    }
    const timer = clock.setTimeout(() => {
      waitingReplacements.delete(timer);
      if (stopping || draining || gaveUp) return;
      // The end was logged at error when it came; this is only its follow-up.
      replace(
        replaces,
        fields,
        'warn',
        'starting the next replacement worker (the new one serves once its caches are synced)',
      );
    }, delayMs);
    // Not what keeps the process running (the workers are).
    (timer as { unref?: () => void }).unref?.();
    waitingReplacements.set(
      timer,
      `a replacement of ${nameOf(member)} starts in ${delayMs / 1000} s (the last replacement did not serve)`,
    );
    broadcastCaches();
    log.error(
      { ...fields, nextTryInMs: delayMs },
      `webhook replacement worker ended before it served; the next one starts in ${delayMs / 1000} s`,
    );
  };

  function replace(
    replaces: NonNullable<Member['replaces']>,
    fields: Record<string, unknown>,
    level: 'error' | 'warn',
    message: string,
  ): void {
    const replacement = fork(replaces);
    // /readyz names it from now on, not only once it has started and reported its caches (which
    // takes tens of seconds on a loaded node).
    broadcastCaches();
    log[level](
      {
        ...fields,
        replacement: replacement.worker.id,
        replacementPid: replacement.worker.process.pid,
      },
      message,
    );
  }

  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 5_000;
  let lastBeat = Date.now();
  const heartbeat = setInterval(() => {
    const timeoutMs = options.heartbeatTimeoutMs ?? 30_000;
    const now = Date.now();
    // A beat later than the interval means this process did not run meanwhile (stalled, frozen,
    // starved of CPU): the workers' answers wait unread in their channels, so that time does not
    // count as their silence (else all of them would be killed at once as it resumes).
    const stalledMs = Math.max(0, now - lastBeat - heartbeatIntervalMs);
    lastBeat = now;
    for (const member of live()) {
      // Killed already (hung, or a replacement too slow to start): its exit is on its way, maybe
      // slowly (a process in uninterruptible I/O dies only once that ends); once is enough.
      if (!member.address || hungWhy?.has(member)) continue;
      member.lastPong = Math.min(now, member.lastPong + stalledMs);
      if (now - member.lastPong > timeoutMs) {
        hungWhy ??= new Map();
        hungWhy.set(
          member,
          `did not answer for ${timeoutMs / 1000} s (its event loop is stuck or the process stopped) and was killed`,
        );
        log.error(
          { worker: member.worker.id, workerPid: member.worker.process.pid },
          'webhook worker does not answer; killing it',
        );
        member.worker.process.kill('SIGKILL');
        continue;
      }
      send(member.worker, { type: 'voe:ping', id: nextId++ });
    }
  }, heartbeatIntervalMs);
  heartbeat.unref();

  const drain = (): Promise<void> => {
    draining ??= (async () => {
      const timeoutMs = options.metricsTimeoutMs ?? 3_000;
      // A worker not listening yet is told when it listens (voe:listening above).
      await Promise.all(
        serving().map(
          (member) =>
            new Promise<void>((resolve) => {
              const id = nextId++;
              const timer = clock.setTimeout(() => {
                waiting.delete(id);
                resolve();
              }, timeoutMs);
              waiting.set(id, () => {
                clock.clearTimeout(timer);
                resolve();
              });
              send(member.worker, { type: 'voe:drain', id });
              // Gone meanwhile, or no channel: nothing to drain there.
              if (!member.worker.isConnected()) {
                clock.clearTimeout(timer);
                waiting.delete(id);
                resolve();
              }
            }),
        ),
      );
    })();
    return draining;
  };

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      clearInterval(heartbeat);
      for (const timer of waitingReplacements.keys()) clock.clearTimeout(timer);
      waitingReplacements.clear();
      const problems = await Promise.all(
        [...members.values()].map(
          (member) =>
            new Promise<string>((resolve) => {
              const { worker } = member;
              if (worker.isDead()) {
                resolve('');
                return;
              }
              let killed = false;
              const kill = clock.setTimeout(() => {
                killed = true;
                log.warn(
                  { worker: worker.id, workerPid: worker.process.pid },
                  'webhook worker did not stop in time; killing it',
                );
                worker.process.kill('SIGKILL');
              }, options.stopTimeoutMs ?? 10_000);
              worker.once('exit', (code: number | null, signal: string | null) => {
                clock.clearTimeout(kill);
                if (killed)
                  resolve(
                    `${nameOf(member)} did not stop within ${(options.stopTimeoutMs ?? 10_000) / 1000} s and was killed.`,
                  );
                else
                  resolve(
                    member.address && (code !== 0 || signal)
                      ? `${nameOf(member)} ${exitText(code, signal)} while stopping; its log says why.`
                      : '',
                  );
              });
              // A worker still starting may not listen for messages yet; it has changed nothing outside itself.
              if (member.address && worker.isConnected()) send(worker, { type: 'voe:stop' });
              else worker.process.kill('SIGKILL');
            }),
        ),
      );
      waiting.clear();
      const failed = problems.filter(Boolean);
      if (failed.length > 0) throw new Error(failed.join(' '));
    })();
    return stopping;
  };

  /** Starts a worker; a replacement (of `replaces`) listens only once its caches are synced. */
  function fork(replaces?: Member['replaces']): Member {
    const worker = cluster.fork({
      ...options.env,
      ...(replaces ? { [WORKER_REPLACEMENT_ENV]: '1' } : {}),
    });
    const member: Member = {
      worker,
      lastPong: Date.now(),
      gone: false,
      ...(replaces ? { replaces } : {}),
    };
    members.set(worker.id, member);
    // Before it listens nothing pings it: a replacement whose caches never sync (RBAC, an API server
    // out of reach) or that hangs would stay "starting" for ever. Killed, it counts as an end.
    if (replaces) {
      const timeoutMs = options.replacementTimeoutMs ?? 120_000;
      member.startTimer = clock.setTimeout(() => {
        // Stopping (drain, stop()) ends it anyway.
        if (member.address || member.gone || stopping || draining) return;
        const waitingFor = !member.caches
          ? 'it reported no cache state: its caches did not start'
          : member.caches.ready
            ? 'its caches were synced, it was not listening yet'
            : `waiting for its caches to sync: ${member.caches.unsynced.join(', ') || 'nothing named'} not synced`;
        hungWhy ??= new Map();
        hungWhy.set(
          member,
          `did not start serving within ${timeoutMs / 1000} s (${waitingFor}) and was killed`,
        );
        log.error(
          { worker: worker.id, workerPid: worker.process.pid, waitingFor },
          `webhook replacement worker did not start serving within ${timeoutMs / 1000} s; killing it`,
        );
        worker.process.kill('SIGKILL');
      }, timeoutMs);
      // Not what keeps the process running (the workers are).
      (member.startTimer as { unref?: () => void }).unref?.();
    }
    worker.on('message', (message: unknown) => {
      if (isWorkerMessage(message)) onMessage(member, message);
    });
    worker.on('exit', (code: number | null, signal: string | null) => onExit(member, code, signal));
    // An IPC send to a worker that just died; its exit says what happened.
    worker.on('error', (error) =>
      log.debug({ worker: worker.id, error: error.message }, 'webhook worker channel error'),
    );
    return member;
  }

  cluster.setupPrimary({
    exec: options.exec,
    args: options.args,
    execArgv: workerExecArgv(process.execArgv),
  });
  const started = new Promise<void>((resolve, reject) => {
    startUp = { resolve, reject };
  });
  // A rejection nobody awaits yet (a worker failing at once) must not become an unhandled rejection.
  started.catch(() => undefined);
  for (let i = 0; i < options.count; i++) fork();

  const listenTimeoutMs = options.listenTimeoutMs ?? 60_000;
  const timer = clock.setTimeout(() => {
    const slow = [...members.values()].filter((m) => !m.address).map((m) => m.worker.id);
    startUp?.reject(
      new WebhookError(
        'WEBHOOK_WORKER_FAILED',
        `Webhook workers ${slow.join(', ')} did not listen within ${Math.round(listenTimeoutMs / 1000)} s; the log says what they were doing.`,
      ),
    );
  }, listenTimeoutMs);
  const onAbort = (): void =>
    startUp?.reject(
      new WebhookError(
        'WEBHOOK_START_ABORTED',
        'The webhook was stopped while its workers were starting; they were stopped.',
      ),
    );
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await started;
  } catch (error) {
    // What start-up did is undone; a worker's own trouble stopping adds nothing to why start-up failed.
    await stop().catch(() => undefined);
    throw error;
  } finally {
    clock.clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    startUp = undefined;
  }
  const all = [...members.values()];
  log.info(
    { workers: options.count, pids: all.map((m) => m.worker.process.pid) },
    'webhook workers listening',
  );
  return {
    address: all[0]!.address!,
    get pids() {
      return serving().map((m) => m.worker.process.pid!);
    },
    caches,
    metricsText,
    drain,
    ended,
    stop,
  };
}
