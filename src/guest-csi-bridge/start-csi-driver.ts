import type { KubeClientConfig } from '../kube/index.js';
import {
  createDeviceLock,
  createExecFileRunner,
  createFsResizer,
  createMountinfoTable,
  createSystemBlockDevices,
  DEFAULT_LOCK_DIRECTORY,
  type BlockDevices,
  type CommandRunner,
  type FsResizer,
} from '../fsresize/index.js';
import type { Logger } from '../log/index.js';
import {
  DEFAULT_CONTROLLER_TIMEOUTS,
  DEFAULT_SETTING_NAME,
  type ControllerTimeouts,
} from './controller/controller-deps.js';
import { createControllerService } from './controller/controller-service.js';
import { VolumeLocks } from './csi/volume-locks.js';
import { DEFAULT_FS_TYPE } from './csi/volume-capability.js';
import { CsiError } from './errors/csi-error.js';
import { createCsiMetrics } from './health/csi-metrics.js';
import {
  followHostReachability,
  type HostReachability,
} from './health/follow-host-reachability.js';
import { serveCsiMetrics, type CsiMetricsServer } from './health/serve-csi-metrics.js';
import type { HostApi } from './host/host-api.js';
import { createHostResolver, type HostResolver } from './host/host-resolver.js';
import { createKubeHostApi } from './host/kube-host-api.js';
import { createIdentityService } from './identity/identity-service.js';
import { startNodeMonitor, type NodeMonitor } from './monitor/node-monitor.js';
import {
  createByIdLocator,
  DEFAULT_BY_ID_DIRECTORY,
  type DeviceLocator,
} from './node/device-locator.js';
import { discoverNodeId } from './node/discover-node-id.js';
import { createMounter, type Mounter } from './node/mounter.js';
import { DEFAULT_NODE_TIMEOUTS, type NodeTimeouts } from './node/node-deps.js';
import { createNodeService } from './node/node-service.js';
import { createSysfsScsiRescanner, type ScsiRescanner } from './node/scsi-rescanner.js';
import { serveCsi, type CsiServer } from './server/serve-csi.js';

/** The driver name Harvester's CSI driver registers: the default, so the bridge is a drop-in for it. */
export const DEFAULT_DRIVER_NAME = 'driver.harvesterhci.io';

/** Which services one process serves. */
export type CsiServices = 'all' | 'controller' | 'node';

export interface CsiDriverOptions {
  /** `unix:///abs/path.sock`. */
  endpoint: string;
  driverName?: string;
  vendorVersion: string;
  services?: CsiServices;
  /** The host cluster (Harvester): required for the controller service; on a node, for node-id discovery and NodeExpandVolume's capacity. */
  hostKubeConfig: KubeClientConfig | undefined;
  /** The guest node's VM name; discovered (MAC addresses against the host's VMIs, else `nodeName`) when not given. */
  nodeId?: string;
  /** The node name node-id discovery falls back to; the hostname unless told. */
  nodeName?: string;
  hostStorageClass?: string;
  settingName?: string;
  /** The filesystem made on blank mount volumes whose capability names none; ext4 unless told. */
  defaultFsType?: string;
  /** Where the node service looks for volume devices by their id; /dev/disk/by-id unless told. */
  deviceDirectory?: string;
  /** Where /metrics is served (port 0: a free one); no metrics server unless given. */
  metrics?: { host: string; port: number };
  /**
   * The node monitor (controller only): the guest cluster's credentials and where its replicas
   * elect their leader; no monitor unless given.
   */
  nodeMonitor?: {
    guest: KubeClientConfig;
    leaseNamespace: string;
    leaseName?: string;
    recheckMs?: number;
    leaseDurationMs?: number;
    renewDeadlineMs?: number;
    retryPeriodMs?: number;
  };
  /** How often the host API is probed for voe_csi_host_reachable; every 30 s unless told. */
  hostProbeIntervalMs?: number;
  controllerTimeouts?: Partial<ControllerTimeouts>;
  nodeTimeouts?: Partial<NodeTimeouts>;
  log: Logger;
  /** Node ports, for tests; production adapters unless given. */
  ports?: {
    runner?: CommandRunner;
    locator?: DeviceLocator;
    mounter?: Mounter;
    resizer?: FsResizer;
    devices?: BlockDevices;
    rescanner?: ScsiRescanner;
  };
}

export interface CsiDriver {
  server: CsiServer;
  nodeId: string | undefined;
  hosts: HostResolver | undefined;
  /** http://host:port of /metrics, when served. */
  metricsUrl: string | undefined;
  /** The node monitor, when started. */
  monitor: NodeMonitor | undefined;
  stop(graceMs?: number): Promise<void>;
}

/** Wires the ports to the services and serves them on the endpoint (see docs/csi.md). */
export async function startCsiDriver(options: CsiDriverOptions): Promise<CsiDriver> {
  const services = options.services ?? 'all';
  const defaultHost: HostApi | undefined = options.hostKubeConfig
    ? createKubeHostApi(options.hostKubeConfig)
    : undefined;
  const hosts = defaultHost
    ? createHostResolver(defaultHost, (kubeConfig) => createKubeHostApi(kubeConfig))
    : undefined;
  const serveController = services !== 'node';
  if (options.nodeMonitor && !serveController)
    throw new CsiError(
      'CSI_NODE_MONITOR_NEEDS_CONTROLLER',
      'the node monitor runs with the controller service: pass --services controller or all',
    );
  const controller = serveController ? controllerService(options, hosts) : undefined;
  const node =
    services !== 'controller' ? await nodeService(options, defaultHost, hosts) : undefined;
  const identity = createIdentityService({
    driverName: options.driverName ?? DEFAULT_DRIVER_NAME,
    vendorVersion: options.vendorVersion,
    controller: serveController,
  });
  const server = await serveCsi({
    endpoint: options.endpoint,
    identity,
    ...(controller ? { controller } : {}),
    ...(node ? { node: node.service } : {}),
    log: options.log,
  });
  // What a slow or unreachable host means for the calls is in their answers (UNAVAILABLE), and
  // for an operator in the log and voe_csi_host_reachable: never in Probe.
  const reachability = defaultHost
    ? followHostReachability(defaultHost, options.log, {
        ...(options.hostProbeIntervalMs ? { intervalMs: options.hostProbeIntervalMs } : {}),
      })
    : undefined;
  const monitor =
    options.nodeMonitor && options.hostKubeConfig && defaultHost
      ? startNodeMonitor({
          ...options.nodeMonitor,
          hostKubeConfig: options.hostKubeConfig,
          host: defaultHost,
          driverName: options.driverName ?? DEFAULT_DRIVER_NAME,
          log: options.log,
        })
      : undefined;
  let metrics: CsiMetricsServer | undefined;
  try {
    metrics = options.metrics
      ? await serveCsiMetrics(
          createCsiMetrics(reachability),
          options.metrics.host,
          options.metrics.port,
        )
      : undefined;
  } catch (error) {
    reachability?.stop();
    await monitor?.stop();
    await server.stop(0);
    throw error;
  }
  return {
    server,
    nodeId: node?.nodeId,
    hosts,
    metricsUrl: metrics?.url,
    monitor,
    stop: (graceMs) => stopDriver(server, reachability, metrics, monitor, graceMs),
  };
}

/**
 * Stops probing the host, the node monitor (releasing its Lease) and serving /metrics, then the
 * gRPC server (running calls may finish within `graceMs`).
 */
async function stopDriver(
  server: CsiServer,
  reachability: HostReachability | undefined,
  metrics: CsiMetricsServer | undefined,
  monitor: NodeMonitor | undefined,
  graceMs: number | undefined,
): Promise<void> {
  reachability?.stop();
  await monitor?.stop();
  await metrics?.stop();
  await server.stop(graceMs);
}

/** The controller service; it needs the host's credentials (CSI_HOST_CREDENTIALS_INVALID otherwise). */
function controllerService(
  options: CsiDriverOptions,
  hosts: HostResolver | undefined,
): ReturnType<typeof createControllerService> {
  if (!hosts)
    throw new CsiError(
      'CSI_HOST_CREDENTIALS_INVALID',
      'the controller service needs the host kubeconfig (--kubeconfig)',
    );
  return createControllerService({
    hosts,
    hostStorageClass: options.hostStorageClass,
    settingName: options.settingName ?? DEFAULT_SETTING_NAME,
    locks: new VolumeLocks(),
    timeouts: { ...DEFAULT_CONTROLLER_TIMEOUTS, ...options.controllerTimeouts },
  });
}

/**
 * The node service on the production adapters (or the ports given), for the node id given or
 * else discovered (discoverNodeId).
 */
async function nodeService(
  options: CsiDriverOptions,
  defaultHost: HostApi | undefined,
  hosts: HostResolver | undefined,
): Promise<{ service: ReturnType<typeof createNodeService>; nodeId: string }> {
  const runner = options.ports?.runner ?? createExecFileRunner();
  const mounts = createMountinfoTable();
  const devices = options.ports?.devices ?? createSystemBlockDevices({ runner });
  const nodeId =
    options.nodeId ||
    (await discoverNodeId(
      defaultHost,
      options.log,
      ...(options.nodeName ? [options.nodeName] : []),
    ));
  const service = createNodeService({
    nodeId,
    defaultFsType: options.defaultFsType ?? DEFAULT_FS_TYPE,
    locator:
      options.ports?.locator ??
      createByIdLocator(options.deviceDirectory ?? DEFAULT_BY_ID_DIRECTORY),
    mounter: options.ports?.mounter ?? createMounter(runner, mounts),
    resizer:
      options.ports?.resizer ??
      createFsResizer({
        runner,
        mounts,
        devices,
        lock: createDeviceLock({ directory: DEFAULT_LOCK_DIRECTORY }),
      }),
    devices,
    rescanner: options.ports?.rescanner ?? createSysfsScsiRescanner(),
    hosts,
    locks: new VolumeLocks(),
    timeouts: { ...DEFAULT_NODE_TIMEOUTS, ...options.nodeTimeouts },
  });
  return { service, nodeId };
}
