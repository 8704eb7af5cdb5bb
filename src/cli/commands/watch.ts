import { InvalidArgumentError, Option, type Command } from 'commander';
import type { KubeClientConfig } from '../../kube/index.js';
import { createLogger, type Logger } from '../../log/index.js';
import {
  agentFilesystemGrower,
  createGuestProbe,
  DEFAULT_LEASE_NAME,
  DEFAULT_PROBE_TIMEOUT_MS,
  DEFAULT_WORKERS,
  GUEST_PROBE_MODES,
  enableExpansion,
  parseDuration,
  parseGuestProbeNamespaces,
  startTracker,
  TrackerError,
  virshAgentOf,
  virshTransportOf,
  type GuestFilesystemGrower,
  type GuestProbe,
  type GuestProbeMode,
  type RunningTracker,
} from '../../vmwatcher/index.js';
import { watchStopRequests } from '../stop-requests.js';
import {
  addEnablementFlags,
  enablementOptions,
  enablementRecorder,
  kubeConfigFrom,
  type EnablementFlags,
} from './enable.js';

interface WatchFlags extends EnablementFlags {
  stuckAfter: number;
  enable?: boolean;
  port: number;
  bindAddress: string;
  leaseNamespace: string;
  leaseName: string;
  workers: number;
  logLevel: string;
  guestProbe: GuestProbeMode;
  libvirtUri?: string;
  guestProbeNamespaces?: string[];
  probeTimeout: number;
  probeInterval: number;
  guestFilesystemGrowth?: boolean;
}

function parseStuckAfter(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < 1000)
    throw new InvalidArgumentError('must be a duration of at least 1s, such as 10m, 90s or 1h30m');
  return ms;
}

function parseSeconds(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < 1000)
    throw new InvalidArgumentError('must be a duration of at least 1s, such as 20s or 1m');
  return ms;
}

function parseWorkers(value: string): number {
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64)
    throw new InvalidArgumentError('must be an integer from 1 to 64');
  return workers;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidArgumentError('must be an integer from 0 to 65535 (0 picks a free port)');
  return port;
}

/**
 * The tracker's guest probe of --guest-probe, if any, and the guest filesystem grower through the
 * same transport: it plans for every probed VM (the commands of a Completed message) and grows
 * only the VMs that opted in, when --guest-filesystem-growth is on.
 */
function guestProbeOf(
  flags: WatchFlags,
  kubeConfig: KubeClientConfig,
): { probe?: GuestProbe; grower?: GuestFilesystemGrower } {
  if (flags.guestProbe === 'none') return {};
  const libvirtUri = flags.libvirtUri ? { libvirtUri: flags.libvirtUri } : {};
  const probe = createGuestProbe(flags.guestProbe, kubeConfig, {
    timeoutMs: flags.probeTimeout,
    ...libvirtUri,
  });
  const grower = agentFilesystemGrower(
    virshAgentOf(virshTransportOf(flags.guestProbe, kubeConfig, libvirtUri)),
    {
      readTimeoutMs: flags.probeTimeout,
    },
  );
  return probe ? { probe, grower } : { grower };
}

/** --guest-filesystem-growth runs through the guest probe's agent: refused without --guest-probe. */
function checkGrowthNeedsProbe(flags: WatchFlags): void {
  if (flags.guestFilesystemGrowth && flags.guestProbe === 'none')
    throw new TrackerError(
      'TRACKER_USAGE',
      '--guest-filesystem-growth needs a guest probe (--guest-probe pods-exec, or local for the VM lab): the growth runs through the guest agent the probe reaches. Add --guest-probe, or remove --guest-filesystem-growth.',
    );
}

/** `voe watch`: the expansion tracker. */
export function register(program: Command): void {
  addEnablementFlags(watchCommand(program)).action(runWatch);
}

/** The command and its flags (the enablement flags are added by register). */
function watchCommand(program: Command): Command {
  return program
    .command('watch')
    .description(
      'Follow every online expansion of a PVC a VM uses, stage by stage, in one VolumeExpansion per requested size ' +
        '(phase, the actor waited for, reason, message, observed sizes; kubectl get volumeexpansions -A or voe status); ' +
        'stuck cases are named with their remedy. Leader-elected on a Lease (only the leader writes); ' +
        'serves /livez, /readyz and /metrics; stops cleanly on SIGTERM, SIGINT or SIGHUP (see docs/tracker.md).',
    )
    .addOption(
      new Option(
        '--stuck-after <duration>',
        'how long a phase may go without progress before it is Stuck (NoProgress)',
      )
        .default(600_000, '10m')
        .argParser(parseStuckAfter),
    )
    .option('--enable', 'run voe enable first (ExpandDisks and the Setting; idempotent)')
    .option(
      '--port <port>',
      'port of /livez, /readyz and /metrics (0 picks a free port)',
      parsePort,
      8080,
    )
    .option('--bind-address <address>', 'address of /livez, /readyz and /metrics', '0.0.0.0')
    .option(
      '--lease-namespace <namespace>',
      'namespace of the leader-election Lease',
      'kube-system',
    )
    .option('--lease-name <name>', 'name of the leader-election Lease', DEFAULT_LEASE_NAME)
    .option(
      '--workers <n>',
      'PVCs processed at once by the leader (each writes its status on its own)',
      parseWorkers,
      DEFAULT_WORKERS,
    )
    .addOption(
      new Option(
        '--guest-probe <mode>',
        "how to see the hypervisor's and the guest's size of a grown disk: none (expansions wait at HypervisorResizing, NoGuestProbe), " +
          "pods-exec (virsh domblkinfo and the guest agent's guest-exec in each VM's virt-launcher pod, compute container; needs create on pods/exec), " +
          "local (the same virsh commands against this machine's libvirt, whose domains are named <namespace>_<vmi> as KubeVirt names them: the VM lab, voe demo --vm)",
      )
        .choices([...GUEST_PROBE_MODES])
        .default('none'),
    )
    .option(
      '--libvirt-uri <uri>',
      'virsh -c for the guest probe (local: default qemu:///system; pods-exec: chosen per launcher pod, qemu:///system for root launchers, the virtqemud socket for non-root ones)',
    )
    .option(
      '--guest-probe-namespaces <ns1,ns2>',
      'probe only VMs in these namespaces (the chart value tracker.guestProbeNamespaces; default: every namespace); a VM elsewhere is not probed and ends GuestUnverifiable',
      parseGuestProbeNamespaces,
    )
    .addOption(
      new Option('--probe-timeout <duration>', 'how long one probe of a disk may take')
        .default(DEFAULT_PROBE_TIMEOUT_MS, '20s')
        .argParser(parseSeconds),
    )
    .addOption(
      new Option(
        '--probe-interval <duration>',
        'the longest pause between two probes of an expansion in HypervisorResizing or GuestVerifying (from 250 ms after a change, doubling)',
      )
        .default(30_000, '30s')
        .argParser(parseSeconds),
    )
    .option(
      '--guest-filesystem-growth',
      'grow the partition, LVM and filesystem in the guest of each VM that opts in (annotation storage.voe.dev/grow-guest-filesystem: "true" on the VM or its Namespace; "false" on the VM opts it out) once the guest sees the grown disk, through the guest agent (needs --guest-probe; the chart value tracker.guestFilesystemGrowth.enable). Without it no guest is changed; a Completed message gives the commands to run there',
    )
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices(['trace', 'debug', 'info', 'warn', 'error'])
        .default('info'),
    );
}

/** Runs the tracker (after `voe enable` with --enable) until a stop request, then stops it. */
async function runWatch(flags: WatchFlags): Promise<void> {
  checkGrowthNeedsProbe(flags);
  const logger = createLogger({ name: 'voe-vmwatcher', level: flags.logLevel });
  const kubeConfig = kubeConfigFrom(flags);
  const stops = watchStopRequests(process, (reason) =>
    logger.warn({ reason: reason.kind }, 'already stopping; waiting for the cleanup to finish'),
  );
  let tracker: RunningTracker | undefined;
  try {
    if (flags.enable) await enableFirst(flags, kubeConfig, logger);
    if (stops.signal.aborted) return;
    tracker = await startTracker({
      kubeConfig,
      logger,
      stuckAfterMs: flags.stuckAfter,
      kubeVirtNamespace: flags.kubevirtNamespace,
      kubeVirtName: flags.kubevirtName,
      leaseNamespace: flags.leaseNamespace,
      leaseName: flags.leaseName,
      host: flags.bindAddress,
      port: flags.port,
      workers: flags.workers,
      probeIntervalMs: flags.probeInterval,
      ...(flags.guestProbeNamespaces ? { guestProbeNamespaces: flags.guestProbeNamespaces } : {}),
      ...(flags.guestFilesystemGrowth ? { guestFilesystemGrowth: true } : {}),
      ...guestProbeOf(flags, kubeConfig),
    });
    process.stderr.write(
      `voe watch: /livez, /readyz and /metrics at ${tracker.url} (identity ${tracker.identity}; SIGTERM stops)\n`,
    );
    const reason = await stops.requested;
    logger.info({ reason: reason.kind }, 'stopping the tracker');
    if (reason.kind === 'error') {
      process.exitCode = 2;
      process.stderr.write(
        `voe: ${reason.origin}: ${reason.error instanceof Error ? (reason.error.stack ?? reason.error.message) : String(reason.error)}\n`,
      );
    }
  } finally {
    await tracker?.stop();
    stops.dispose();
    logger.info('tracker stopped');
    // Whatever a failed component left open must not keep a stopped tracker running.
    setTimeout(() => process.exit(), 2_000).unref();
  }
}

/** `voe enable` (ExpandDisks and the Setting), its Events recorded until it is done. */
async function enableFirst(
  flags: WatchFlags,
  kubeConfig: KubeClientConfig,
  logger: Logger,
): Promise<void> {
  const recorder = enablementRecorder(kubeConfig, logger);
  try {
    await enableExpansion(enablementOptions(flags, kubeConfig, logger, recorder));
  } finally {
    await recorder.stop();
  }
}
