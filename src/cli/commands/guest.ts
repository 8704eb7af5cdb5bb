import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  formatBytes,
  physicalDriveNumber,
  planGuestGrowth,
  planWindowsGrowth,
  type GuestGrowthPlan,
} from '../../fsresize/index.js';
import {
  DEFAULT_STEP_TIMEOUT_MS,
  GUEST_GROW_EVENT_ACTION,
  GuestGrowEventReason,
  GuestRunError,
  chooseVmiDisk,
  linuxReadings,
  proveWindowsGrowth,
  grownMountPoint,
  linuxGrowthProver,
  readGuestLayout,
  readWindowsLayout,
  runGuestGrowth,
  vmiNotReady,
  windowsReadings,
  type GuestAgent,
  type GuestGrowthRun,
  type GuestReadings,
  type GrowthProof,
} from '../../guest-grow/index.js';
import {
  getObject,
  isNotFound,
  requestJson,
  resourcePath,
  type EventRecorder,
  type KubeClientConfig,
  type ObjectRef,
} from '../../kube/index.js';
import { createLogger } from '../../log/index.js';
import {
  KUBEVIRT_POD_LABEL,
  LAUNCHER_POD,
  type Pod,
  type VirtualMachineInstance,
} from '../../model/index.js';
import {
  DEFAULT_PROBE_TIMEOUT_MS,
  VirshGuestProbe,
  activeLauncher,
  agentFilesystemList,
  domainName,
  launcherUser,
  parseDuration,
  virshGuestAgent,
  virshTransportOf,
  windowsGuest,
} from '../../vmwatcher/index.js';
import { formatGuestPlan, formatGuestRun, guestRunNote } from '../format-guest-growth.js';
import { enablementRecorder, kubeConfigFrom } from './enable.js';

interface GuestGrowFlags {
  disk?: string;
  dryRun?: boolean;
  json?: boolean;
  guestProbe: 'pods-exec' | 'local';
  libvirtUri?: string;
  probeTimeout: number;
  stepTimeout: number;
  kubeconfig?: string;
}

const KUBEVIRT = { group: 'kubevirt.io', version: 'v1' };

function parseSeconds(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < 1000)
    throw new InvalidArgumentError('must be a duration of at least 1s, such as 20s or 5m');
  return ms;
}

/** NAMESPACE/NAME, each a DNS label-like name. */
export function parseVmRef(ref: string): { namespace: string; name: string } {
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(ref);
  if (!match)
    throw new GuestRunError(
      'GUESTRUN_USAGE',
      `${JSON.stringify(ref)} is not a VM as NAMESPACE/NAME (e.g. default/vm1)`,
    );
  return { namespace: match[1]!, name: match[3]! };
}

/** The VMI, or undefined when there is none. */
async function readVmi(
  kubeConfig: KubeClientConfig,
  namespace: string,
  name: string,
): Promise<VirtualMachineInstance | undefined> {
  try {
    return await getObject<VirtualMachineInstance>(kubeConfig, {
      ...KUBEVIRT,
      plural: 'virtualmachineinstances',
      namespace,
      name,
    });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** What the Events are about: the VM when there is one (Harvester's VM page lists its Events), else the VMI. */
async function eventTarget(
  kubeConfig: KubeClientConfig,
  vmi: VirtualMachineInstance,
): Promise<ObjectRef> {
  const namespace = vmi.metadata?.namespace ?? '';
  const name = vmi.metadata?.name ?? '';
  let kind = 'VirtualMachine';
  let uid: string | undefined;
  try {
    const vm = await getObject<{ metadata?: { uid?: string } }>(kubeConfig, {
      ...KUBEVIRT,
      plural: 'virtualmachines',
      namespace,
      name,
    });
    uid = vm.metadata?.uid;
  } catch {
    kind = 'VirtualMachineInstance';
    uid = vmi.metadata?.uid;
  }
  return { apiVersion: 'kubevirt.io/v1', kind, namespace, name, uid: uid ?? '' };
}

/**
 * The guest's agent and its device of the chosen disk, found as the tracker's probe finds it
 * (serial, else address): /dev/vdb, or \\.\PhysicalDriveN in a Windows guest.
 */
async function guestOfDisk(
  kubeConfig: KubeClientConfig,
  vmi: VirtualMachineInstance,
  vm: string,
  flags: GuestGrowFlags,
): Promise<{ agent: GuestAgent; device: string }> {
  const namespace = vmi.metadata?.namespace ?? '';
  const disk = chooseVmiDisk(vmi, flags.disk);
  const pods = (
    await requestJson<{ items: Pod[] }>(kubeConfig, {
      method: 'GET',
      path: resourcePath({ group: '', version: 'v1', plural: 'pods', namespace }),
      query: { labelSelector: `${KUBEVIRT_POD_LABEL}=${LAUNCHER_POD}` },
    })
  ).items;
  const launcher = activeLauncher(vmi, pods);
  const transport = virshTransportOf(flags.guestProbe, kubeConfig, {
    ...(flags.libvirtUri ? { libvirtUri: flags.libvirtUri } : {}),
  });
  // The filesystem list ties a Windows disk to its \\.\PhysicalDriveN (guest-get-fsinfo).
  const probe = new VirshGuestProbe({
    transport,
    filesystems: agentFilesystemList(transport, domainName),
    timeoutMs: flags.probeTimeout,
  });
  const reading = await probe.read({
    vmi,
    ...disk,
    launcherPod: launcher?.metadata?.name,
    launcherUser: launcherUser(launcher),
  });
  if (reading.guestDevice === undefined || reading.guestEvidence === 'Filesystem')
    throw new GuestRunError(
      'GUESTRUN_VM_NOT_READY',
      `the guest probe did not tie disk ${disk.volumeName} (${disk.target}) of ${vm} to a guest block device: ${reading.failure ?? reading.guestUnverifiable ?? (windowsGuest(vmi) ? 'the guest did not give its \\\\.\\PhysicalDriveN size (Get-Disk through powershell.exe)' : 'the guest refuses guest-exec')}; nothing was run — ${reading.guestUnverifiableRemedy ?? 'check the guest agent (guest-exec allowed) and the transport (--guest-probe), then retry'}`,
      { details: { vm, disk: disk.volumeName } },
    );
  const host = {
    namespace,
    launcherPod: launcher?.metadata?.name,
    launcherUser: launcherUser(launcher),
  };
  return {
    agent: virshGuestAgent(transport, host, domainName(vmi)),
    device:
      physicalDriveNumber(reading.guestDevice) === undefined
        ? `/dev/${reading.guestDevice}`
        : reading.guestDevice,
  };
}

/** The guest's layout of `device` read and planned: Linux (readGuestLayout) or Windows (readWindowsLayout). */
async function planOf(
  agent: GuestAgent,
  device: string,
  timeoutMs: number,
): Promise<{
  plan: GuestGrowthPlan;
  read: (signal?: AbortSignal) => Promise<GuestReadings>;
  prove: (run: GuestGrowthRun) => Promise<GrowthProof | undefined>;
}> {
  const target = { disk: device, timeoutMs };
  if (physicalDriveNumber(device) === undefined) {
    const layout = await readGuestLayout(agent, target);
    const plan = planGuestGrowth(layout, { disk: device });
    const prove = await linuxGrowthProver(agent, grownMountPoint(plan, layout), timeoutMs);
    return { plan, read: linuxReadings(agent, target), prove: () => prove() };
  }
  const layout = await readWindowsLayout(agent, target);
  return {
    plan: planWindowsGrowth(layout, { disk: device }),
    read: windowsReadings(agent, target),
    prove: (run) => proveWindowsGrowth(agent, layout, run, timeoutMs),
  };
}

/** A grown run proven by guest-get-fsinfo, or the run turned failed by the proof's error. */
async function proven(
  run: GuestGrowthRun,
  prove: (run: GuestGrowthRun) => Promise<GrowthProof | undefined>,
): Promise<{ run: GuestGrowthRun; proof?: GrowthProof | undefined }> {
  if (run.outcome !== 'grown') return { run };
  try {
    return { run, proof: await prove(run) };
  } catch (error) {
    if (!(error instanceof GuestRunError)) throw error;
    return { run: { ...run, outcome: 'failed', error } };
  }
}

/** The proof's line under a run's report. */
function proofLine(proof: GrowthProof | undefined): string {
  return proof
    ? `  proven by guest-get-fsinfo: ${proof.mountPoint} ${formatBytes(Number(proof.beforeBytes))} -> ${formatBytes(Number(proof.afterBytes))}\n`
    : '';
}

/** Records the run's Event on the VM (nothing for a run that found nothing to do). */
function recordRun(recorder: EventRecorder, regarding: ObjectRef, run: GuestGrowthRun): void {
  if (run.outcome === 'already-grown') return;
  recorder.record({
    regarding,
    type: run.outcome === 'grown' ? 'Normal' : 'Warning',
    reason: run.outcome === 'grown' ? GuestGrowEventReason.Grown : GuestGrowEventReason.NotGrown,
    action: GUEST_GROW_EVENT_ACTION,
    note: guestRunNote(run),
  });
}

async function runGuestGrow(ref: string, flags: GuestGrowFlags): Promise<void> {
  const { namespace, name } = parseVmRef(ref);
  const vm = `${namespace}/${name}`;
  const kubeConfig = kubeConfigFrom(flags);
  const vmi = await readVmi(kubeConfig, namespace, name);
  const notReady = vmiNotReady(vmi, vm);
  if (notReady) throw notReady;
  const { agent, device } = await guestOfDisk(kubeConfig, vmi!, vm, flags);
  const where = `${vm} ${device}`;
  const { plan, read, prove } = await planOf(agent, device, flags.probeTimeout);
  if (flags.dryRun) {
    process.stdout.write(
      flags.json
        ? `${JSON.stringify(dryRunJson(vm, device, plan), null, 2)}\n`
        : formatGuestPlan(plan, where),
    );
    if (plan.kind === 'refuse') process.exitCode = 1;
    return;
  }
  const recorder = enablementRecorder(kubeConfig, createLogger({ level: 'warn' }));
  try {
    const { run, proof } = await proven(
      await runGuestGrowth(agent, plan, { vm, read, stepTimeoutMs: flags.stepTimeout }),
      prove,
    );
    recordRun(recorder, await eventTarget(kubeConfig, vmi!), run);
    const filesystem = proof && {
      mountPoint: proof.mountPoint,
      beforeBytes: String(proof.beforeBytes),
      afterBytes: String(proof.afterBytes),
    };
    process.stdout.write(
      flags.json
        ? `${JSON.stringify({ vm, disk: device, ...run, error: run.error && { code: run.error.code, message: run.error.message }, ...(filesystem ? { filesystem } : {}) }, null, 2)}\n`
        : formatGuestRun(run, where) + proofLine(proof),
    );
    if (run.outcome === 'refused') process.exitCode = 1;
    if (run.outcome === 'failed') process.exitCode = 2;
  } finally {
    await recorder.stop();
  }
}

function dryRunJson(vm: string, disk: string, plan: GuestGrowthPlan): object {
  if (plan.kind === 'refuse')
    return {
      vm,
      disk,
      dryRun: true,
      refused: { code: plan.error.code, reason: plan.error.reason, remedy: plan.error.remedy },
    };
  return {
    vm,
    disk,
    dryRun: true,
    steps: plan.steps.map((step) => ({
      argv: step.argv,
      ...(step.stdin === undefined ? {} : { stdin: step.stdin }),
      why: step.why,
    })),
  };
}

/** `voe guest grow`: the guest's partition, LVM and filesystem, once, by hand. */
export function register(program: Command): void {
  const guest = program
    .command('guest')
    .description("Act inside a VM's guest through its QEMU guest agent (see docs/guest-growth.md)");
  guest
    .command('grow')
    .argument('<namespace/vm>', 'the VM, as NAMESPACE/NAME')
    .description(
      "Grow, once, what sits on a VM disk the hypervisor has grown: the guest's last partition, its LVM physical and logical volume, " +
        "and the mounted filesystem, with the guest's own tools run through its guest agent (guest-exec; nothing is copied into the guest). " +
        'The disk is found as voe watch finds it (serial, else address). Each step checks the size before and after; the run stops at the first failure ' +
        'and records every command; a second run does nothing. --dry-run prints each command and why, and changes nothing. ' +
        'Exit 0: grown or nothing to do; 1: refused (the reason and remedy are printed); 2: an error or a failed step. ' +
        "A grown filesystem is proven by the guest agent's guest-get-fsinfo (its size larger after the run, else exit 2). " +
        'Records a GuestFilesystemGrown or GuestFilesystemNotGrown Event on the VM. ' +
        'A Windows guest: its disk is tied to \\\\.\\PhysicalDriveN from guest-get-fsinfo, its drive (by letter) grown by Resize-Partition to ' +
        "Get-PartitionSupportedSize's maximum through powershell.exe, refused when the recovery partition follows it, and proven by guest-get-fsinfo after " +
        "(designed on the agent's documented answers; never run on a Windows guest in voe's tests).",
    )
    .option(
      '--disk <name>',
      'the VMI disk to grow (spec.domain.devices.disks[].name); needed when the VM has several disks on PVCs',
    )
    .option(
      '--dry-run',
      'print the plan (each command as typed in the guest, and why); run nothing',
    )
    .option('--json', 'print the plan or the run as JSON')
    .addOption(
      new Option(
        '--guest-probe <mode>',
        "how to reach virsh next to the domain, as voe watch: pods-exec (the virt-launcher pod, compute container) or local (this machine's libvirt: the VM lab)",
      )
        .choices(['pods-exec', 'local'])
        .default('pods-exec'),
    )
    .option(
      '--libvirt-uri <uri>',
      'virsh -c (as voe watch: local default qemu:///system; pods-exec chosen per launcher pod)',
    )
    .addOption(
      new Option(
        '--probe-timeout <duration>',
        'how long finding the disk, and each command that reads the guest, may take',
      )
        .default(DEFAULT_PROBE_TIMEOUT_MS, '20s')
        .argParser(parseSeconds),
    )
    .addOption(
      new Option('--step-timeout <duration>', 'how long each growing command may run in the guest')
        .default(DEFAULT_STEP_TIMEOUT_MS, '5m')
        .argParser(parseSeconds),
    )
    .option(
      '--kubeconfig <file>',
      'kubeconfig of the cluster (default: $KUBECONFIG, ~/.kube/config, then in-cluster)',
    )
    .action(runGuestGrow);
}
