import { InvalidArgumentError, Option, type Command } from 'commander';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { planGuestGrowth, type GuestGrowthPlan } from '../../fsresize/index.js';
import {
  DEFAULT_STEP_TIMEOUT_MS,
  GUEST_GROW_EVENT_ACTION,
  GuestGrowEventReason,
  GuestRunError,
  chooseVmiDisk,
  linuxReadings,
  readGuestLayout,
  runGuestGrowth,
  vmiNotReady,
  type GuestAgent,
  type GuestGrowthRun,
} from '../../guest-grow/index.js';
import { isNotFound, type EventRecorder, type ObjectRef } from '../../kube/index.js';
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
  kubeConfig: KubeConfig,
  namespace: string,
  name: string,
): Promise<VirtualMachineInstance | undefined> {
  try {
    return (await kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      ...KUBEVIRT,
      plural: 'virtualmachineinstances',
      namespace,
      name,
    })) as VirtualMachineInstance;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** What the Events are about: the VM when there is one (Harvester's VM page lists its Events), else the VMI. */
async function eventTarget(
  kubeConfig: KubeConfig,
  vmi: VirtualMachineInstance,
): Promise<ObjectRef> {
  const namespace = vmi.metadata?.namespace ?? '';
  const name = vmi.metadata?.name ?? '';
  try {
    const vm = (await kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      ...KUBEVIRT,
      plural: 'virtualmachines',
      namespace,
      name,
    })) as { metadata?: { uid?: string } };
    return {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      namespace,
      name,
      uid: vm.metadata?.uid ?? '',
    };
  } catch {
    return {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      namespace,
      name,
      uid: vmi.metadata?.uid ?? '',
    };
  }
}

/** The guest's agent and its device of the chosen disk, found as the tracker's probe finds it (serial, else address). */
async function guestOfDisk(
  kubeConfig: KubeConfig,
  vmi: VirtualMachineInstance,
  vm: string,
  flags: GuestGrowFlags,
): Promise<{ agent: GuestAgent; device: string }> {
  const namespace = vmi.metadata?.namespace ?? '';
  const disk = chooseVmiDisk(vmi, flags.disk);
  const pods = (
    await kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({
      namespace,
      labelSelector: `${KUBEVIRT_POD_LABEL}=${LAUNCHER_POD}`,
    })
  ).items as Pod[];
  const launcher = activeLauncher(vmi, pods);
  const transport = virshTransportOf(flags.guestProbe, kubeConfig, {
    ...(flags.libvirtUri ? { libvirtUri: flags.libvirtUri } : {}),
  });
  const probe = new VirshGuestProbe({ transport, timeoutMs: flags.probeTimeout });
  const reading = await probe.read({
    vmi,
    ...disk,
    launcherPod: launcher?.metadata?.name,
    launcherUser: launcherUser(launcher),
  });
  if (reading.guestDevice === undefined || reading.guestEvidence === 'Filesystem')
    throw new GuestRunError(
      'GUESTRUN_VM_NOT_READY',
      `the guest probe did not tie disk ${disk.volumeName} (${disk.target}) of ${vm} to a guest block device: ${reading.failure ?? reading.guestUnverifiable ?? 'the guest refuses guest-exec'}; nothing was run — ${reading.guestUnverifiableRemedy ?? 'check the guest agent (guest-exec allowed) and the transport (--guest-probe), then retry'}`,
      { details: { vm, disk: disk.volumeName } },
    );
  const host = {
    namespace,
    launcherPod: launcher?.metadata?.name,
    launcherUser: launcherUser(launcher),
  };
  return {
    agent: virshGuestAgent(transport, host, domainName(vmi)),
    device: `/dev/${reading.guestDevice}`,
  };
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
  const windows = windowsGuest(vmi!);
  if (windows !== undefined)
    throw new GuestRunError(
      'GUESTRUN_VM_NOT_READY',
      `${vm} runs ${windows}: voe guest grow grows Linux guests; nothing was run — extend the drive in the guest (Disk Management, or Resize-Partition -DriveLetter X -Size (Get-PartitionSupportedSize -DriveLetter X).SizeMax)`,
      { details: { vm } },
    );
  const { agent, device } = await guestOfDisk(kubeConfig, vmi!, vm, flags);
  const where = `${vm} ${device}`;
  const layout = await readGuestLayout(agent, { disk: device, timeoutMs: flags.probeTimeout });
  const plan: GuestGrowthPlan = planGuestGrowth(layout, { disk: device });
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
    const run = await runGuestGrowth(agent, plan, {
      vm,
      read: linuxReadings(agent, { disk: device, timeoutMs: flags.probeTimeout }),
      stepTimeoutMs: flags.stepTimeout,
    });
    recordRun(recorder, await eventTarget(kubeConfig, vmi!), run);
    process.stdout.write(
      flags.json
        ? `${JSON.stringify({ vm, disk: device, ...run, error: run.error && { code: run.error.code, message: run.error.message } }, null, 2)}\n`
        : formatGuestRun(run, where),
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
        'Records a GuestFilesystemGrown or GuestFilesystemNotGrown Event on the VM. Linux guests only.',
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
