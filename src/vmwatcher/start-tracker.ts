import { createServer, type RequestListener, type Server } from 'node:http';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { KubeClientConfig } from '../kube/index.js';
import { EventRecorder, eventSink, LeaderElector, leaseLock, type Clock } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import { listenPlainHttp, metricsRequestHandler } from '../metrics/index.js';
import { ExpansionTracker } from './expansion-tracker.js';
import type { GuestProbe } from './guest-probe.js';
import type { GuestFilesystemGrower } from './guest-filesystem-grower.js';
import { startTrackerCaches, type StartedTrackerCaches } from './tracker-caches.js';
import { createTrackerMetrics, type TrackerMetrics } from './tracker-metrics.js';
import { TrackerError } from './tracker-error.js';
import { TRACKER_CONTROLLER } from './tracker-controller.js';

export { TRACKER_CONTROLLER };

export const DEFAULT_LEASE_NAME = 'voe-vmwatcher';
export const DEFAULT_STUCK_AFTER_MS = 10 * 60_000;
/** Keys processed at once by the leader (`--workers`). */
export const DEFAULT_WORKERS = 16;

export interface StartTrackerOptions {
  kubeConfig: KubeClientConfig;
  logger?: Logger;
  /** --stuck-after (default 10 min). */
  stuckAfterMs?: number;
  /** The KubeVirt CR whose ExpandDisks gate counts (Harvester: harvester-system/kubevirt). */
  kubeVirtNamespace: string;
  kubeVirtName: string;
  /** Where the Lease lives. */
  leaseNamespace: string;
  leaseName?: string;
  /** This replica's identity in the Lease (default: host name and a random suffix). */
  identity?: string;
  /** Probe and metrics server: address and port (0: a free port). */
  host: string;
  port: number;
  probe?: GuestProbe;
  /** The namespaces the probe may probe (--guest-probe-namespaces); undefined: every one. */
  guestProbeNamespaces?: readonly string[];
  /** How often a probed expansion reads the probe again (default 30 s). */
  probeIntervalMs?: number;
  /** Plans or grows the guest's filesystem once the guest sees the grown disk (needs `probe`). */
  grower?: GuestFilesystemGrower;
  /** --guest-filesystem-growth: opted-in VMs (annotation on the VM or its Namespace) are grown; caches Namespaces. */
  guestFilesystemGrowth?: boolean;
  workers?: number;
  /** Lease timings (tests; client-go's 15 s / 10 s / 2 s unless told). */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
}

export interface RunningTracker {
  /** http://host:port of /livez, /readyz and /metrics. */
  url: string;
  identity: string;
  metrics: TrackerMetrics;
  caches: StartedTrackerCaches;
  isLeader(): boolean;
  /**
   * Stops leading (the workers finish the key in hand; nothing is written after), releases the
   * Lease so another replica takes over at once, flushes the Events, stops the informers and the
   * server. Idempotent.
   */
  stop(): Promise<void>;
}

/**
 * Starts `voe watch`'s tracker (docs/tracker.md): the caches, the probe and metrics server, and
 * leader election on a Lease; while leading, the ExpansionTracker processes keys and writes. A
 * replica that does not lead keeps its caches warm and answers /readyz and /metrics.
 * /livez: 200 while the process runs; /readyz: 200 once every cache follows the API server (else
 * 503 naming those that do not).
 */
export async function startTracker(options: StartTrackerOptions): Promise<RunningTracker> {
  const identity =
    options.identity ?? `${hostname().slice(0, 100)}-${randomBytes(4).toString('hex')}`;
  const caches = startCaches(options);
  const metrics = createTrackerMetrics(() => caches.caches.expansions.list());
  const recorder = new EventRecorder({
    sink: eventSink(options.kubeConfig),
    reportingController: TRACKER_CONTROLLER,
    reportingInstance: identity.slice(0, 128),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const tracker = createExpansionTracker(options, caches, metrics, recorder);
  const server = createServer(serveProbes(caches, metrics));
  const { url } = await listenOrUndo(server, options, () => {
    tracker.close();
    return caches.stop();
  });
  const elector = electLeader(options, identity, caches, metrics, tracker);
  const campaign = elector.run();
  let stopping: Promise<void> | undefined;
  return {
    url,
    identity,
    metrics,
    caches,
    isLeader: () => elector.isLeader && tracker.leading,
    stop: () =>
      (stopping ??= (async () => {
        await elector.stop();
        await campaign;
        tracker.close();
        await recorder.stop();
        await caches.stop();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })()),
  };
}

/** The informer caches; once every one has listed, one log line saying what is cached. */
function startCaches(options: StartTrackerOptions): StartedTrackerCaches {
  const logger = options.logger;
  const caches = startTrackerCaches({
    kubeConfig: options.kubeConfig,
    kubeVirtNamespace: options.kubeVirtNamespace,
    kubeVirtName: options.kubeVirtName,
    ...(options.guestFilesystemGrowth ? { namespaces: true } : {}),
    ...(logger ? { logger } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  void caches.synced.then(
    () => {
      logger?.info(
        {
          objects: Object.fromEntries(
            Object.entries(caches.caches).map(([name, informer]) => [name, informer.keys().length]),
          ),
        },
        'tracker caches synced',
      );
    },
    () => undefined,
  );
  return caches;
}

function createExpansionTracker(
  options: StartTrackerOptions,
  caches: StartedTrackerCaches,
  metrics: TrackerMetrics,
  recorder: EventRecorder,
): ExpansionTracker {
  return new ExpansionTracker({
    kubeConfig: options.kubeConfig,
    caches: caches.caches,
    metrics,
    recorder,
    stuckAfterMs: options.stuckAfterMs ?? DEFAULT_STUCK_AFTER_MS,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.probe ? { probe: options.probe } : {}),
    ...(options.guestProbeNamespaces ? { guestProbeNamespaces: options.guestProbeNamespaces } : {}),
    ...(options.probeIntervalMs ? { probeIntervalMs: options.probeIntervalMs } : {}),
    ...(options.grower ? { grower: options.grower } : {}),
    ...(options.guestFilesystemGrowth ? { guestFilesystemGrowth: true } : {}),
    workers: options.workers ?? DEFAULT_WORKERS,
  });
}

/** The handler of /livez, /readyz and /metrics (GET only). */
function serveProbes(caches: StartedTrackerCaches, metrics: TrackerMetrics): RequestListener {
  return metricsRequestHandler(metrics.registry, {
    '/livez': (response) => response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n'),
    '/readyz': (response) => {
      const unsynced = caches.unsynced();
      if (unsynced.length === 0)
        response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
      else
        response
          .writeHead(503, { 'Content-Type': 'text/plain' })
          .end(`caches not synced: ${unsynced.join(', ')}\n`);
    },
  });
}

/** Listens on host:port; on failure undoes what was started and throws TRACKER_LISTEN_FAILED. */
async function listenOrUndo(
  server: Server,
  options: StartTrackerOptions,
  undo: () => Promise<void>,
): Promise<{ url: string }> {
  try {
    return await listenPlainHttp(server, options.host, options.port);
  } catch (error) {
    await undo();
    throw new TrackerError(
      'TRACKER_LISTEN_FAILED',
      `cannot listen on ${options.host}:${options.port} for /livez, /readyz and /metrics (${(error as Error).message}); pass a free --port`,
      { cause: error },
    );
  }
}

/**
 * Leader election on the Lease: while leading (and once the caches listed: the tracker would take
 * an empty cache for the cluster), the tracker processes keys; on losing the Lease it finishes
 * the key in hand before the Lease is released, so nothing is written after that.
 */
function electLeader(
  options: StartTrackerOptions,
  identity: string,
  caches: StartedTrackerCaches,
  metrics: TrackerMetrics,
  tracker: ExpansionTracker,
): LeaderElector {
  const logger = options.logger;
  let leading: Promise<void> | undefined;
  return new LeaderElector({
    lock: leaseLock(
      options.kubeConfig,
      options.leaseNamespace,
      options.leaseName ?? DEFAULT_LEASE_NAME,
    ),
    identity,
    ...(options.leaseDurationMs ? { leaseDurationMs: options.leaseDurationMs } : {}),
    ...(options.renewDeadlineMs ? { renewDeadlineMs: options.renewDeadlineMs } : {}),
    ...(options.retryPeriodMs ? { retryPeriodMs: options.retryPeriodMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(logger ? { logger } : {}),
    onStartedLeading: (signal) => {
      metrics.leader.set(1);
      leading = leadOnceSynced(caches, tracker, signal);
      return leading;
    },
    onStoppedLeading: async () => {
      metrics.leader.set(0);
      await leading;
      leading = undefined;
    },
    onNewLeader: (holder) =>
      logger?.info({ leader: holder, self: holder === identity }, 'tracker leader'),
  });
}

/** Waits for the caches to list (or the lead to end), then leads until `signal` aborts. */
async function leadOnceSynced(
  caches: StartedTrackerCaches,
  tracker: ExpansionTracker,
  signal: AbortSignal,
): Promise<void> {
  const aborted = new Promise<false>((resolve) =>
    signal.addEventListener('abort', () => resolve(false), { once: true }),
  );
  const synced = await Promise.race([
    caches.synced.then(
      () => true,
      () => false,
    ),
    aborted,
  ]);
  if (synced && !signal.aborted) await tracker.lead(signal);
}
