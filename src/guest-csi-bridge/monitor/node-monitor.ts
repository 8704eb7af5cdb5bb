import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { KubeClientConfig } from '../../kube/index.js';
import {
  LeaderElector,
  leaseLock,
  ok,
  retryAfter,
  runWorkers,
  WorkQueue,
  type WorkResult,
} from '../../kube/index.js';
import type { Logger } from '../../log/index.js';
import type { HostApi } from '../host/host-api.js';
import type { HostVmi } from '../host/host-objects.js';
import { decideNodeAction } from './decide-node-action.js';
import type { MonitoredVm } from './guest-objects.js';
import {
  monitorCachesSynced,
  startMonitorCaches,
  stopMonitorCaches,
  type MonitorCaches,
} from './monitor-caches.js';
import { guestVolumesOf, nodeFactsOf, taintsWith, vmNameOf } from './node-monitor-facts.js';
import { patchNodeTaints } from './patch-node-taints.js';
import { releaseVolumes } from './release-volumes.js';

/** The Lease the monitor's replicas elect their leader on (in the guest). */
export const DEFAULT_MONITOR_LEASE = 'voe-csi-node-monitor';
/** How often a node that is not Ready is judged again (its VM's state changes without a guest event). */
export const DEFAULT_RECHECK_MS = 15_000;

export interface NodeMonitorOptions {
  /** The guest cluster (its Nodes, PersistentVolumes and the Lease). */
  guest: KubeClientConfig;
  /** The host cluster: its VMIs are watched, its VMs read and patched. */
  hostKubeConfig: KubeClientConfig;
  host: HostApi;
  driverName: string;
  leaseNamespace: string;
  leaseName?: string;
  /** This replica's identity in the Lease (host name and a random suffix unless told). */
  identity?: string;
  recheckMs?: number;
  /** Lease timings (tests; client-go's 15 s / 10 s / 2 s unless told). */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  log: Logger;
}

export interface NodeMonitor {
  isLeader(): boolean;
  /** Stops leading (the node in hand finishes), releases the Lease, stops the watches. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The node monitor of `voe csi`'s controller (docs/csi.md "Node monitor"), after Harvester's
 * (harvester-csi-driver pkg/controller/node, run by pkg/csi/manager.go under leader election on
 * a Lease): the leader judges every guest node whenever it, a guest PV or the node's host VMI
 * changes (and every `recheckMs` while it is not Ready), through decideNodeAction, and taints the
 * node out of service, removes its own taint, or unplugs the node's volumes from its VM.
 */
export function startNodeMonitor(options: NodeMonitorOptions): NodeMonitor {
  const log = options.log.child({ component: 'node-monitor' });
  const caches = startMonitorCaches(
    options.guest,
    options.hostKubeConfig,
    options.host.namespace,
    log,
  );
  const identity =
    options.identity ?? `${hostname().slice(0, 100)}-${randomBytes(4).toString('hex')}`;
  let queue: WorkQueue<string> | undefined;
  followChanges(caches, options.driverName, (name) => queue?.add(name));
  let working: Promise<void> | undefined;
  const elector = electLeader(options, identity, log, {
    start: (signal) => {
      const leading = new WorkQueue<string>({ baseDelayMs: 1_000, maxDelayMs: 60_000 });
      queue = leading;
      // Queued nodes are dropped at once; the one in hand finishes before the Lease is let go.
      signal.addEventListener('abort', () => void leading.shutDown({ drain: false }), {
        once: true,
      });
      for (const node of caches.nodes.list())
        if (node.metadata?.name) leading.add(node.metadata.name);
      working = runWorkers(leading, 1, (name) => judgeNode(options, caches, name, log), {
        logger: log,
      });
      return working;
    },
    stop: async () => {
      queue = undefined;
      await working;
      working = undefined;
    },
  });
  const campaign = elector.run();
  let stopping: Promise<void> | undefined;
  return {
    isLeader: () => elector.isLeader,
    stop: () =>
      (stopping ??= (async () => {
        await elector.stop();
        await campaign;
        await stopMonitorCaches(caches);
      })()),
  };
}

/** Queues the guest node concerned by each change: the node itself, its VM's VMI, or every node for a PV. */
function followChanges(
  caches: MonitorCaches,
  driver: string,
  enqueue: (node: string) => void,
): void {
  const all = (): void => {
    for (const node of caches.nodes.list()) if (node.metadata?.name) enqueue(node.metadata.name);
  };
  const ofVm = (vmi: HostVmi): void => {
    for (const node of caches.nodes.list())
      if (node.metadata?.name && vmNameOf(node, driver) === vmi.metadata?.name)
        enqueue(node.metadata.name);
  };
  caches.nodes.on('add', (node) => node.metadata?.name && enqueue(node.metadata.name));
  caches.nodes.on('update', (node) => node.metadata?.name && enqueue(node.metadata.name));
  for (const event of ['add', 'update', 'delete'] as const) {
    caches.pvs.on(event, all);
    caches.vmis.on(event, ofVm);
  }
}

/** Leader election on the monitor's Lease in the guest: `lead.start` while leading, `lead.stop` awaited before the Lease is let go. */
function electLeader(
  options: NodeMonitorOptions,
  identity: string,
  log: Logger,
  lead: { start: (signal: AbortSignal) => Promise<void>; stop: () => Promise<void> },
): LeaderElector {
  return new LeaderElector({
    lock: leaseLock(
      options.guest,
      options.leaseNamespace,
      options.leaseName ?? DEFAULT_MONITOR_LEASE,
    ),
    identity,
    ...(options.leaseDurationMs ? { leaseDurationMs: options.leaseDurationMs } : {}),
    ...(options.renewDeadlineMs ? { renewDeadlineMs: options.renewDeadlineMs } : {}),
    ...(options.retryPeriodMs ? { retryPeriodMs: options.retryPeriodMs } : {}),
    logger: log,
    onStartedLeading: lead.start,
    onStoppedLeading: lead.stop,
    onNewLeader: (holder) =>
      log.info({ leader: holder, self: holder === identity }, 'node monitor leader'),
  });
}

/**
 * One guest node judged and acted on (OnNodesChange in Harvester's monitor): the node and the
 * guest PVs from the caches, the VM read from the host (as getNodeAndVMHealth reads it), the VMI
 * from the cache.
 */
async function judgeNode(
  options: NodeMonitorOptions,
  caches: MonitorCaches,
  name: string,
  log: Logger,
): Promise<WorkResult> {
  if (!monitorCachesSynced(caches)) return retryAfter(1_000);
  const node = caches.nodes.get(undefined, name);
  if (!node) return ok();
  const vmName = vmNameOf(node, options.driverName);
  const vm = (await options.host.getVm(vmName)) as MonitoredVm | undefined;
  const facts = nodeFactsOf({
    node,
    driver: options.driverName,
    vm,
    vmi: caches.vmis.get(options.host.namespace, vmName),
    guestVolumes: guestVolumesOf(caches.pvs.list(), options.driverName),
  });
  const action = decideNodeAction(facts);
  const where = { node: name, vm: vmName };
  switch (action.kind) {
    case 'taint':
    case 'untaint':
      await patchNodeTaints(
        options.guest,
        node,
        taintsWith(node.spec?.taints ?? [], action.kind === 'taint'),
      );
      log.info(
        where,
        action.kind === 'taint'
          ? 'the guest node is not Ready and its VM does not run: tainted out of service'
          : 'the guest node is Ready and its VM runs again: out-of-service taint removed',
      );
      return ok();
    case 'release': {
      const released = await releaseVolumes(options.host, action.vm, action.volumes, log);
      if (released.length > 0)
        log.info(
          { ...where, volumes: released },
          "unplugged the out-of-service node's volumes from its VM",
        );
      return ok();
    }
    case 'none':
      log.debug({ ...where, why: action.why }, 'node monitor: nothing to do');
      return facts.ready === false ? retryAfter(options.recheckMs ?? DEFAULT_RECHECK_MS) : ok();
  }
}
