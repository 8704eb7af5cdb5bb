import { Command, Option } from 'commander';
import type { KubeClientConfig } from '../../kube/index.js';
import {
  contextNamespaceOf,
  DEFAULT_BY_ID_DIRECTORY,
  DEFAULT_DRIVER_NAME,
  DEFAULT_FS_TYPE,
  startCsiDriver,
  SUPPORTED_FS_TYPES,
  type CsiServices,
} from '../../guest-csi-bridge/index.js';
import { loadKubeConfig } from '../../kube/index.js';
import { createLogger } from '../../log/index.js';
import { readPackageVersion } from '../package-version.js';
import { parsePort } from './serve-flags.js';
import { stopExitCode, watchStopRequests } from '../stop-requests.js';

interface CsiFlags {
  endpoint: string;
  nodeId?: string;
  nodeName?: string;
  kubeconfig?: string;
  driverName: string;
  hostStorageClass?: string;
  services: CsiServices;
  deviceDir: string;
  defaultFsType: string;
  metricsPort?: number;
  metricsBindAddress: string;
  nodeMonitor: boolean;
  guestKubeconfig?: string;
  nodeMonitorLeaseNamespace?: string;
  logLevel: string;
}

/** How long running calls may finish after a stop signal. */
const STOP_GRACE_MS = 10_000;

/** `voe csi`: the guest cluster's CSI driver (Identity, Controller, Node over gRPC on a unix socket). */
export function register(program: Command): void {
  csiCommand(program).action(runCsi);
}

/** The command and its flags. */
function csiCommand(program: Command): Command {
  return program
    .command('csi')
    .description(
      "Serve the guest cluster's CSI driver on a unix socket: a drop-in for Harvester's driver (driver.harvesterhci.io) whose volumes are PVCs of the host (Harvester) cluster, " +
        "hotplugged into the guest node's VM; ControllerExpandVolume grows the host PVC after checking the host's csi-online-expand-validation Setting and waits for it by watch, " +
        'NodeExpandVolume grows the filesystem through the fsresize core (see docs/csi.md)',
    )
    .option(
      '--endpoint <endpoint>',
      'the socket to serve, unix:///abs/path.sock',
      'unix:///csi/csi.sock',
    )
    .option(
      '--node-id <id>',
      "this guest node's VM name on the host (default: the host VMI with one of this machine's MAC addresses, else the hostname)",
    )
    .option(
      '--node-name <name>',
      'the guest node name node-id discovery falls back to when no host VMI has one of its MAC addresses (default: the hostname)',
    )
    .option(
      '--kubeconfig <file>',
      "the host (Harvester) cluster's kubeconfig; its context's namespace holds the volumes and the guest node VMs (default: $KUBECONFIG, ~/.kube/config, then in-cluster)",
    )
    .option('--driver-name <name>', 'the CSI driver name', DEFAULT_DRIVER_NAME)
    .option(
      '--host-storage-class <name>',
      "the host StorageClass of new volumes whose StorageClass has no hostStorageClass parameter (default: the host's default)",
    )
    .addOption(
      new Option('--services <which>', 'the services to serve (Identity always)')
        .choices(['all', 'controller', 'node'])
        .default('all'),
    )
    .option(
      '--device-dir <dir>',
      'where the node service finds volume devices by name (entries whose names contain the volume id)',
      DEFAULT_BY_ID_DIRECTORY,
    )
    .addOption(
      new Option(
        '--default-fs-type <type>',
        'the filesystem made on a blank mount volume whose volume capability names none',
      )
        .choices([...SUPPORTED_FS_TYPES])
        .default(DEFAULT_FS_TYPE),
    )
    .option(
      '--metrics-port <port>',
      'serve /metrics on this port (voe_csi_host_reachable: whether the host API answers; never part of Probe); none unless given',
      parsePort,
    )
    .option('--metrics-bind-address <address>', 'address of /metrics', '0.0.0.0')
    .option(
      '--node-monitor',
      'run the node monitor (controller only): a guest node that is not Ready while its VM does not run is tainted node.kubernetes.io/out-of-service, and its volumes are unplugged from the VM so its pods can move; replicas elect one leader on the Lease voe-csi-node-monitor',
      false,
    )
    .option(
      '--guest-kubeconfig <file>',
      "the guest cluster's kubeconfig, for the node monitor (default: $KUBECONFIG, ~/.kube/config, then in-cluster)",
    )
    .option(
      '--node-monitor-lease-namespace <namespace>',
      "the namespace of the node monitor's Lease (default: the guest kubeconfig's context namespace, in a pod its own)",
    )
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices(['trace', 'debug', 'info', 'warn', 'error'])
        .default('info'),
    );
}

/** Serves the CSI driver until a stop request, then lets running calls finish (STOP_GRACE_MS). */
async function runCsi(flags: CsiFlags): Promise<void> {
  const log = createLogger({ name: 'voe-csi', level: flags.logLevel });
  const stops = watchStopRequests(process, () =>
    log.warn('already stopping; waiting for running calls to finish'),
  );
  try {
    const hostKubeConfig = hostKubeConfigOf(flags);
    const driver = await startCsiDriver({
      endpoint: flags.endpoint,
      driverName: flags.driverName,
      vendorVersion: readPackageVersion(),
      services: flags.services,
      hostKubeConfig,
      ...(flags.nodeId ? { nodeId: flags.nodeId } : {}),
      ...(flags.nodeName ? { nodeName: flags.nodeName } : {}),
      ...(flags.hostStorageClass ? { hostStorageClass: flags.hostStorageClass } : {}),
      deviceDirectory: flags.deviceDir,
      defaultFsType: flags.defaultFsType,
      ...(flags.nodeMonitor ? { nodeMonitor: nodeMonitorOf(flags) } : {}),
      ...(flags.metricsPort !== undefined
        ? { metrics: { host: flags.metricsBindAddress, port: flags.metricsPort } }
        : {}),
      log,
    });
    log.info(
      {
        endpoint: flags.endpoint,
        driver: flags.driverName,
        services: flags.services,
        nodeId: driver.nodeId,
        nodeMonitor: flags.nodeMonitor,
        hostNamespace: driver.hosts?.defaultHost.namespace,
        ...(driver.metricsUrl ? { metrics: `${driver.metricsUrl}/metrics` } : {}),
      },
      'serving CSI',
    );
    const reason = await stops.requested;
    log.info({ reason: reason.kind === 'signal' ? reason.signal : reason.kind }, 'stopping');
    await driver.stop(STOP_GRACE_MS);
    process.exitCode = reason.kind === 'signal' ? 0 : stopExitCode(reason);
  } finally {
    stops.dispose();
  }
}

/** The node monitor's guest credentials and Lease namespace. */
function nodeMonitorOf(flags: CsiFlags): { guest: KubeClientConfig; leaseNamespace: string } {
  const guest = loadKubeConfig(flags.guestKubeconfig);
  return {
    guest,
    leaseNamespace: flags.nodeMonitorLeaseNamespace ?? contextNamespaceOf(guest),
  };
}

/** The host cluster's kubeconfig: --kubeconfig, else the default; a node-only driver may have none. */
function hostKubeConfigOf(flags: CsiFlags): KubeClientConfig | undefined {
  return flags.services === 'node' && flags.kubeconfig === undefined
    ? tryLoad()
    : loadKubeConfig(flags.kubeconfig);
}

/** A node without host credentials still serves (no node-id discovery, Probe always ready). */
function tryLoad(): KubeClientConfig | undefined {
  try {
    return loadKubeConfig();
  } catch {
    return undefined;
  }
}
