import { Command, InvalidArgumentError } from 'commander';
import { resolve } from 'node:path';
import {
  installCrds,
  killManagedProcesses,
  KUBERNETES_VERSION,
  lockControlPlaneDir,
  startControlPlane,
  type ControlPlane,
} from '../../controlplane/index.js';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  DEMO_CONFIGURATION_NAME,
  runDemo,
  runVmDemo,
  surveyExpansions,
  DemoError,
  VM_DEMO,
} from '../../demo/index.js';
import { installerPath, installVmLab } from '../../demo/index.js';
import { deleteValidatingWebhookConfiguration } from '../../webhook/index.js';
import { stopExitCode, watchStopRequests, type StopReason } from '../stop-requests.js';
import { createLogger, outputDestination, type Logger } from '../../log/index.js';
import { parseQuantity } from '../../kube/index.js';
import {
  addAdmissionFlags,
  admissionOptionsFromFlags,
  type AdmissionFlags,
} from '../admission-flags.js';
import { apiAnswersWithin } from '../api-answers-within.js';
import { defaultCacheDir } from '../cache-dir.js';
import { exitOnceAnswered } from '../exit-once-answered.js';
import {
  formatDemoExpansion,
  formatDemoStatus,
  formatDemoStep,
  formatDemoSummary,
  formatSurvey,
  formatVmDemo,
  TRACKER_PART_HEADING,
} from '../format-demo.js';
import { parseWaitSeconds } from '../parse-wait-seconds.js';
import { clientNodeKubeConfig } from '../../kube/client-node-kube-config.js';
import { loadKubeConfigOr } from '../load-kube-config-or.js';

interface DemoFlags extends AdmissionFlags {
  local?: boolean;
  vm?: boolean;
  kubeconfig?: string;
  dir?: string;
  cacheDir?: string;
  growBy: string;
  json?: boolean;
  timeout: number;
}

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** --grow-by: checked when parsed, in either mode, so a bad value is a usage error before anything starts. */
function parseGrowBy(value: string): string {
  let bytes: bigint;
  try {
    bytes = parseQuantity(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  if (bytes <= 0n)
    throw new InvalidArgumentError(`must be a positive quantity such as 1Gi, got "${value}"`);
  return value;
}

/** How long a stop waits for the demo's step under way and its webhook's removal before stopping the control plane. */
const DEMO_STOP_WAIT_MS = 20_000;

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** Ends the process after a stop request, with SIGKILL for whatever still runs. */
function exitAfterStop(reason: StopReason): never {
  killManagedProcesses();
  process.exit(stopExitCode(reason));
}

/** What the local demo has started so far: what a stop request must stop or undo. */
interface LocalDemo {
  cp?: ControlPlane;
  releaseDir?: () => Promise<void>;
  run?: Promise<unknown>;
}

/** Local mode: a fresh control plane, the staged scenario, the webhook, every resize of the demo. */
async function demoOnLocalControlPlane(flags: DemoFlags): Promise<boolean> {
  progress(
    `voe demo: starting a local control plane (kube-apiserver ${KUBERNETES_VERSION} + etcd; the first run builds them, about 5 minutes on 2 cores)`,
  );
  const started: LocalDemo = {};
  // SIGINT, SIGTERM, SIGHUP (and an uncaught error), at any moment: see stopLocalDemo. A second
  // request while doing so kills at once.
  const stops = watchStopRequests(process, exitAfterStop);
  void stops.requested.then((reason) => stopLocalDemo(started, reason));
  try {
    if (flags.dir) {
      // One supervisor per directory: never beside a `voe cluster start --dir` or another demo there.
      // The lock creates the directory (CONTROLPLANE_START_FAILED naming the errno when it cannot).
      started.releaseDir = await lockControlPlaneDir(resolve(flags.dir));
    }
    if (flags.vm) await installVmLabSaying(flags.cacheDir ?? defaultCacheDir());
    const cp = await startControlPlane({
      cacheDir: flags.cacheDir ?? defaultCacheDir(),
      env: process.env,
      onProgress: progress,
      ...(flags.dir ? { dir: flags.dir } : {}),
    });
    started.cp = cp;
    await installDemoCrds(cp);
    progress(
      flags.vm
        ? `voe demo: control plane ready at ${cp.apiServerUrl}`
        : `voe demo: control plane ready at ${cp.apiServerUrl}; staging VMs, volumes, KubeVirt, Longhorn and the csi-online-expand-validation Setting, then starting the tracker and registering the webhook\n`,
    );
    const logger = createLogger({
      name: 'voe-demo',
      level: 'warn',
      destination: outputDestination(2),
    });
    const run = flags.vm
      ? demoOnVm(cp.kubeConfig, logger, flags, stops.signal)
      : demoAdmissionAndTracker(cp.kubeConfig, logger, flags, stops.signal);
    started.run = run;
    return await run;
  } catch (error) {
    // Stopped: what fails now is the stop's doing (the API server going away); the stop ends the process.
    if (stops.reason()) await new Promise<never>(() => undefined);
    throw error;
  } finally {
    if (!stops.reason()) {
      stops.dispose();
      await started.cp?.stop();
      await started.releaseDir?.();
    }
  }
}

/**
 * After a stop request: the demo sees the stop (its signal) between steps and removes its webhook
 * and registration itself while the API server still runs (waited for up to DEMO_STOP_WAIT_MS);
 * the registration is removed here too (in a kept --dir it would refuse every growing PVC later),
 * then the control plane stops, the directory is unlocked, and the process exits 128 + the
 * signal's number.
 */
async function stopLocalDemo(started: LocalDemo, reason: StopReason): Promise<void> {
  try {
    if (started.run) await settledWithin(started.run, DEMO_STOP_WAIT_MS);
    if (started.cp) {
      await deleteValidatingWebhookConfiguration(
        started.cp.kubeConfig,
        DEMO_CONFIGURATION_NAME,
      ).catch(() => undefined);
      await started.cp.stop();
    }
    await started.releaseDir?.();
  } finally {
    exitAfterStop(reason);
  }
}

async function installDemoCrds(cp: ControlPlane): Promise<void> {
  await installCrds(cp.kubeConfig).catch((error: unknown) => {
    throw new DemoError(
      'DEMO_API_FAILED',
      `installing the KubeVirt, Harvester, Longhorn, CDI and voe CRDs failed: ${(error as Error).message}`,
      { cause: error },
    );
  });
}

/** --vm: the VM lab's packages, through the project's installer, saying so first. */
async function installVmLabSaying(cacheDir: string): Promise<void> {
  progress(
    `voe demo --vm: first installing the VM lab through the project's installer (bash ${installerPath()} vm: QEMU, libvirt and its client from Debian when missing; the guest's kernel, busybox-static and qemu-guest-agent unpacked into ${cacheDir})`,
  );
  await installVmLab(cacheDir);
}

/** The demo's steps through the webhook, then the tracker following each admitted resize; printed as they go (not with --json). */
async function demoAdmissionAndTracker(
  kubeConfig: KubeConfig,
  logger: Logger,
  flags: DemoFlags,
  signal: AbortSignal,
): Promise<boolean> {
  let followed = 0;
  const report = await runDemo({
    kubeConfig,
    logger,
    signal,
    ...(flags.json
      ? {}
      : {
          onStep: (step) => process.stdout.write(formatDemoStep(step)),
          onExpansion: (result) =>
            process.stdout.write(
              `${followed++ === 0 ? TRACKER_PART_HEADING : ''}${formatDemoExpansion(result)}`,
            ),
        }),
  });
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(report, null, 2)}\n`
      : `${formatDemoStatus(report, Date.now())}${formatDemoSummary(report)}`,
  );
  return report.ok;
}

/** --vm: one resize on a real VM, from the PVC edit to the guest's measured bytes, as a timeline. */
async function demoOnVm(
  kubeConfig: KubeConfig,
  logger: Logger,
  flags: DemoFlags,
  signal: AbortSignal,
): Promise<boolean> {
  const report = await runVmDemo({
    kubeConfig,
    logger,
    cacheDir: flags.cacheDir ?? defaultCacheDir(),
    onProgress: progress,
    signal,
  });
  process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatVmDemo(report));
  return report.ok;
}

/** Configured cluster: read-only, what each VM disk would get if it grew now. */
async function demoOnConfiguredCluster(flags: DemoFlags): Promise<boolean> {
  const admission = admissionOptionsFromFlags(
    flags,
    (message) => new DemoError('DEMO_USAGE', message),
  );
  const kubeConfig = clientNodeKubeConfig(
    loadKubeConfigOr(
      flags.kubeconfig,
      (message) => new DemoError('DEMO_USAGE', message),
      '--local',
    ),
  );
  // An API server that accepts connections but never answers must not hold the survey for ever.
  exitOnceAnswered();
  const rows = await apiAnswersWithin(
    surveyExpansions({ kubeConfig, admission, growBy: flags.growBy }),
    kubeConfig,
    flags.timeout,
    'every read of the survey',
    (message) => new DemoError('DEMO_API_FAILED', message),
  );
  process.stdout.write(
    flags.json ? `${JSON.stringify(rows, null, 2)}\n` : formatSurvey(rows, flags.growBy),
  );
  return true;
}

export function register(program: Command): void {
  const command = program
    .command('demo')
    .description(
      'Show voe deciding resizes end to end. With no cluster configured (no --kubeconfig, no $KUBECONFIG) or with --local: ' +
        'start a local control plane, stage running VMs on Longhorn v1/v2, NFS and TopoLVM volumes, run and register the webhook, and ' +
        'try each resize through the API server as a user would, then run the expansion tracker while test actors play external-resizer, ' +
        "kubelet and virt-controller for each admitted resize (exit 1 if any answer differs from Harvester's design or any expansion from the tracker's phases). " +
        "On a configured cluster: read-only, what each VM disk's update would get if it grew by --grow-by now, as voe check answers it " +
        "(the API server's own checks, LimitRanges and ResourceQuotas included, and the webhook's; the admission options below apply to this survey).",
    )
    .option('--local', 'use a local control plane even when a cluster is configured')
    .option(
      '--vm',
      `instead of the admission steps: one resize on a real VM. Installs the VM lab first through the project's installer (scripts/install-test-deps.sh vm: QEMU, libvirt, the guest's Debian packages; needs root), ` +
        `boots a libvirt domain ${VM_DEMO.namespace}_${VM_DEMO.vm} (QEMU under TCG, qemu-guest-agent in the guest) with an ${VM_DEMO.filesystem} filesystem mounted on ${VM_DEMO.mountPoint} (made in the guest through guest-exec), mirrored in the local control plane with the VM opted in to guest growth, raises its PVC through the webhook, ` +
        "plays external-resizer, kubelet, virt-controller and virt-handler (virsh blockresize), and prints the timeline of the tracker's phases (--guest-probe local --guest-filesystem-growth) up to GuestFilesystemGrowing and Completed (GuestFilesystemGrown) with the hypervisor's and the guest's bytes, and the guest's df of the filesystem before and after (exit 1 unless it grew). Implies --local",
    )
    .option('--kubeconfig <file>', 'the cluster to survey (read-only); default $KUBECONFIG')
    .option(
      '--dir <dir>',
      'local mode: working directory of the control plane (default: a temporary directory, removed at the end)',
    )
    .option('--cache-dir <dir>', 'local mode: build cache (default $VOE_CACHE_DIR or ~/.cache/voe)')
    .option(
      '--grow-by <quantity>',
      'survey mode: the growth asked about for each PVC (a positive whole number of bytes, e.g. 1Gi)',
      parseGrowBy,
      '1Gi',
    )
    .option('--json', 'print the report as JSON')
    .option(
      '--timeout <seconds>',
      "survey mode: how long to wait for the API server's answers before giving up (exit 2)",
      parseWaitSeconds,
      60,
    );
  addAdmissionFlags(command).action(async (flags: DemoFlags) => {
    const configured = flags.kubeconfig !== undefined || (process.env['KUBECONFIG'] ?? '') !== '';
    const ok =
      flags.local || flags.vm || !configured
        ? await demoOnLocalControlPlane(flags)
        : await demoOnConfiguredCluster(flags);
    process.exitCode = ok ? 0 : 1;
  });
}
