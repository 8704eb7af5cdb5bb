import {
  physicalDriveNumber,
  planGuestGrowth,
  planWindowsGrowth,
  renderGuestCommands,
  type GuestGrowthPlan,
  type GuestLayout,
  type WindowsLayout,
} from '../../fsresize/index.js';
import {
  DEFAULT_READ_TIMEOUT_MS,
  GuestRunError,
  linuxReadings,
  proveWindowsGrowth,
  grownMountPoint,
  linuxGrowthProver,
  readGuestLayout,
  readWindowsLayout,
  runGuestGrowth,
  VmLock,
  windowsReadings,
  type GuestAgent,
  type GuestGrowthRun,
  type GuestReadings,
  type GrowthProof,
} from '../../guest-grow/index.js';
import type {
  GuestFilesystemGrower,
  GuestGrowthOutcome,
  GuestGrowthPlanResult,
  GuestGrowthTarget,
  RanCommand,
} from '../guest-filesystem-grower.js';
import { virshGuestAgent } from './virsh-guest-agent.js';
import type { VirshTransport } from './virsh-transport.js';
import { domainName, windowsGuest } from './vmi-disk.js';

export interface AgentFilesystemGrowerOptions {
  /** How long each reading command may run in the guest (the probe's --probe-timeout). */
  readTimeoutMs?: number;
  /** How long each growth step may run in the guest; the runner's default when unset. */
  stepTimeoutMs?: number;
}

/** One guest disk: its agent, the device path the plan names, the VM the lock is held for, its OS. */
interface GuestDisk {
  agent: GuestAgent;
  disk: string;
  vm: string;
  /** Windows: `disk` is \\.\PhysicalDriveN, read by readWindowsLayout and planned by planWindowsGrowth. */
  windows: boolean;
}

/** What was read of a guest and the plan made from it. */
type Planned =
  | { windows: false; layout: GuestLayout; plan: GuestGrowthPlan }
  | { windows: true; layout: WindowsLayout; plan: GuestGrowthPlan };

/** The guest agent of a target's VM: virsh qemu-agent-command over the probe's transport. */
export function virshAgentOf(transport: VirshTransport): (target: GuestGrowthTarget) => GuestAgent {
  return (target) =>
    virshGuestAgent(
      transport,
      {
        namespace: target.vmi.metadata?.namespace ?? '',
        launcherPod: target.launcherPod,
        launcherUser: target.launcherUser,
      },
      domainName(target.vmi),
    );
}

function guestDiskOf(
  agentOf: (target: GuestGrowthTarget) => GuestAgent,
  target: GuestGrowthTarget,
): GuestDisk {
  const vm = `${target.vmi.metadata?.namespace ?? ''}/${target.vmi.metadata?.name ?? ''}`;
  if (physicalDriveNumber(target.guestDevice) !== undefined)
    return { agent: agentOf(target), disk: target.guestDevice, vm, windows: true };
  const windows = windowsGuest(target.vmi);
  if (windows !== undefined)
    throw new GuestRunError(
      'GUESTRUN_VM_NOT_READY',
      `${vm} runs ${windows}, and the probe tied its disk to ${target.guestDevice}, not to a \\\\.\\PhysicalDriveN; nothing was run — extend the drive in the guest (Disk Management, or Resize-Partition)`,
      { details: { vm } },
    );
  return { agent: agentOf(target), disk: `/dev/${target.guestDevice}`, vm, windows: false };
}

/** The commands a run ran, each as the line a user types, its exit code and its output. */
function ranCommands(run: GuestGrowthRun, lines: readonly string[]): RanCommand[] {
  return run.steps.flatMap((step, index) =>
    step.ran
      ? [
          {
            command: lines[index] ?? step.argv.join(' '),
            ...(step.exitCode === undefined ? {} : { exitCode: step.exitCode }),
            output: [step.stdout, step.stderr].filter(Boolean).join('\n'),
          },
        ]
      : [],
  );
}

/**
 * A grown Linux run's filesystem: its mount point and its size before and after, as the guest's
 * agent reports it (guest-get-fsinfo's total-bytes, what df shows: `proof`), or, when the agent
 * lists no size of it, as the run's filesystem step read it (the filesystem's own size).
 */
function grownFilesystem(
  run: GuestGrowthRun,
  layout: GuestLayout,
  proof: GrowthProof | undefined,
): { mountPoint: string; beforeBytes: bigint; afterBytes: bigint } {
  if (proof) return proof;
  const step = run.steps.find((s) => s.reading === 'filesystem');
  const device = layout.blockDevices.find((d) => d.name === step?.of);
  return {
    mountPoint: device?.mountPoint ?? step?.of ?? '',
    beforeBytes: BigInt(step?.beforeBytes ?? 0),
    afterBytes: BigInt(step?.afterBytes ?? step?.beforeBytes ?? 0),
  };
}

function failedOutcome(
  error: { code: string; message: string } | undefined,
  ran: RanCommand[],
): GuestGrowthOutcome {
  return {
    kind: 'failed',
    code: error?.code ?? 'GUESTRUN_STEP_FAILED',
    message: error?.message ?? 'the growth stopped',
    ran,
  };
}

/**
 * A run's outcome; a grown filesystem's sizes are proven by guest-get-fsinfo (`prove`: a Linux
 * mount point's by linuxGrowthProver, a Windows drive's by proveWindowsGrowth).
 */
async function outcomeOf(
  run: GuestGrowthRun,
  planned: Planned,
  prove: () => Promise<GrowthProof | undefined>,
): Promise<GuestGrowthOutcome> {
  const lines = planned.plan.kind === 'grow' ? renderGuestCommands(planned.plan) : [];
  const ran = ranCommands(run, lines);
  if (run.outcome === 'grown') {
    try {
      const proof = await prove();
      if (!planned.windows)
        return { kind: 'grown', ran, ...grownFilesystem(run, planned.layout, proof) };
      return { kind: 'grown', ran, ...proof! };
    } catch (error) {
      if (error instanceof GuestRunError) return failedOutcome(error, ran);
      throw error;
    }
  }
  if (run.outcome === 'already-grown') return { kind: 'nothing-to-do' };
  const error = run.error;
  if (run.outcome === 'refused' && error && 'remedy' in error)
    return { kind: 'refused', code: error.code, reason: error.reason, remedy: error.remedy };
  return failedOutcome(error, ran);
}

/**
 * The tracker's GuestFilesystemGrower through the guest agent (docs/guest-growth.md "In the
 * tracker"): the guest's layout read with its own tools (readGuestLayout), the plan made by the
 * fsresize core (planGuestGrowth), the plan run by the runner (runGuestGrowth, one VM at a time
 * under one lock for the whole tracker), each through the VM's agent (`agentOf`: virshAgentOf, over
 * the probe's virsh transport).
 * A Windows disk (the probe tied it to its \\.\PhysicalDriveN: physicalDriveOfDisk) is read by
 * readWindowsLayout, planned by planWindowsGrowth (Resize-Partition through powershell.exe) and
 * run the same way with windowsReadings; its grown drive is proven by guest-get-fsinfo
 * (proveWindowsGrowth). A grown Linux filesystem is proven by guest-get-fsinfo too: its mount
 * point's total-bytes after the run must exceed those before (else GUESTRUN_SIZE_NOT_REACHED), and
 * are the sizes it answers; an agent that lists no size or refuses guest-get-fsinfo leaves the
 * steps' own readings. A Windows guest whose disk is not tied to a PhysicalDrive is not grown:
 * both calls reject, and the tracker says the guest could not be read.
 */
export function agentFilesystemGrower(
  agentOf: (target: GuestGrowthTarget) => GuestAgent,
  options: AgentFilesystemGrowerOptions = {},
): GuestFilesystemGrower {
  /** One growth per VM among this grower's runs (the tracker holds its own lock around plan and grow). */
  const lock = new VmLock();
  const reading = (guest: GuestDisk) => ({
    disk: guest.disk,
    ...(options.readTimeoutMs === undefined ? {} : { timeoutMs: options.readTimeoutMs }),
  });
  const planFor = async (guest: GuestDisk, signal?: AbortSignal): Promise<Planned> => {
    if (guest.windows) {
      const layout = await readWindowsLayout(guest.agent, reading(guest), signal);
      return { windows: true, layout, plan: planWindowsGrowth(layout, { disk: guest.disk }) };
    }
    const layout = await readGuestLayout(guest.agent, reading(guest), signal);
    return { windows: false, layout, plan: planGuestGrowth(layout, { disk: guest.disk }) };
  };
  const readingsOf = (guest: GuestDisk): ((signal?: AbortSignal) => Promise<GuestReadings>) =>
    guest.windows
      ? windowsReadings(guest.agent, reading(guest))
      : linuxReadings(guest.agent, reading(guest));
  return {
    async plan(target, signal): Promise<GuestGrowthPlanResult> {
      const { plan } = await planFor(guestDiskOf(agentOf, target), signal);
      if (plan.kind === 'refuse') {
        const { code, reason, remedy } = plan.error;
        return { kind: 'refused', code, reason, remedy };
      }
      if (plan.steps.length === 0) return { kind: 'nothing-to-do' };
      return { kind: 'planned', commands: renderGuestCommands(plan) };
    },
    async grow(target, signal): Promise<GuestGrowthOutcome> {
      const guest = guestDiskOf(agentOf, target);
      const planned = await planFor(guest, signal);
      const timeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
      // A Linux proof reads the mount point's size now, before the run.
      const proveLinux = planned.windows
        ? undefined
        : await linuxGrowthProver(
            guest.agent,
            grownMountPoint(planned.plan, planned.layout),
            timeoutMs,
            signal,
          );
      const run = await runGuestGrowth(guest.agent, planned.plan, {
        vm: guest.vm,
        read: readingsOf(guest),
        lock,
        ...(options.stepTimeoutMs === undefined ? {} : { stepTimeoutMs: options.stepTimeoutMs }),
        ...(signal ? { signal } : {}),
      });
      const prove = planned.windows
        ? () => proveWindowsGrowth(guest.agent, planned.layout, run, timeoutMs, signal)
        : proveLinux!;
      return outcomeOf(run, planned, prove);
    },
  };
}
