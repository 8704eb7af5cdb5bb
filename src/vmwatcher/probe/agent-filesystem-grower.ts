import {
  planGuestGrowth,
  renderGuestCommands,
  type GuestGrowthPlan,
  type GuestLayout,
} from '../../fsresize/index.js';
import {
  GuestRunError,
  linuxReadings,
  readGuestLayout,
  runGuestGrowth,
  VmLock,
  type GuestAgent,
  type GuestGrowthRun,
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

/** One guest disk: its agent, the device path the plan names, and the VM the lock is held for. */
interface GuestDisk {
  agent: GuestAgent;
  disk: string;
  vm: string;
}

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
  const windows = windowsGuest(target.vmi);
  if (windows !== undefined)
    throw new GuestRunError(
      'GUESTRUN_VM_NOT_READY',
      `${vm} runs ${windows}: voe grows Linux guests' filesystems; nothing was run — extend the drive in the guest (Disk Management, or Resize-Partition)`,
      { details: { vm } },
    );
  return { agent: agentOf(target), disk: `/dev/${target.guestDevice}`, vm };
}

function planOf(layout: GuestLayout, disk: string): GuestGrowthPlan {
  return planGuestGrowth(layout, { disk });
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

/** A grown run's filesystem: its mount point (lsblk's) and its size before and after the filesystem step. */
function grownFilesystem(
  run: GuestGrowthRun,
  layout: GuestLayout,
): { mountPoint: string; beforeBytes: bigint; afterBytes: bigint } {
  const step = run.steps.find((s) => s.reading === 'filesystem');
  const device = layout.blockDevices.find((d) => d.name === step?.of);
  return {
    mountPoint: device?.mountPoint ?? step?.of ?? '',
    beforeBytes: BigInt(step?.beforeBytes ?? 0),
    afterBytes: BigInt(step?.afterBytes ?? step?.beforeBytes ?? 0),
  };
}

function outcomeOf(run: GuestGrowthRun, layout: GuestLayout, lines: string[]): GuestGrowthOutcome {
  const ran = ranCommands(run, lines);
  if (run.outcome === 'grown') return { kind: 'grown', ran, ...grownFilesystem(run, layout) };
  if (run.outcome === 'already-grown') return { kind: 'nothing-to-do' };
  const error = run.error;
  if (run.outcome === 'refused' && error && 'remedy' in error)
    return { kind: 'refused', code: error.code, reason: error.reason, remedy: error.remedy };
  return {
    kind: 'failed',
    code: error?.code ?? 'GUESTRUN_STEP_FAILED',
    message: error?.message ?? 'the growth stopped',
    ran,
  };
}

/**
 * The tracker's GuestFilesystemGrower through the guest agent (docs/guest-growth.md "In the
 * tracker"): the guest's layout read with its own tools (readGuestLayout), the plan made by the
 * fsresize core (planGuestGrowth), the plan run by the runner (runGuestGrowth, one VM at a time
 * under one lock for the whole tracker), each through the VM's agent (`agentOf`: virshAgentOf, over
 * the probe's virsh transport).
 * A Windows guest is not grown (its disk is not yet tied to its PhysicalDrive): both calls reject,
 * and the tracker says the guest could not be read.
 */
export function agentFilesystemGrower(
  agentOf: (target: GuestGrowthTarget) => GuestAgent,
  options: AgentFilesystemGrowerOptions = {},
): GuestFilesystemGrower {
  /** One growth per VM among this grower's runs (the tracker holds its own lock around plan and grow). */
  const lock = new VmLock();
  const read = (guest: GuestDisk, signal?: AbortSignal): Promise<GuestLayout> =>
    readGuestLayout(
      guest.agent,
      {
        disk: guest.disk,
        ...(options.readTimeoutMs === undefined ? {} : { timeoutMs: options.readTimeoutMs }),
      },
      signal,
    );
  return {
    async plan(target, signal): Promise<GuestGrowthPlanResult> {
      const guest = guestDiskOf(agentOf, target);
      const plan = planOf(await read(guest, signal), guest.disk);
      if (plan.kind === 'refuse') {
        const { code, reason, remedy } = plan.error;
        return { kind: 'refused', code, reason, remedy };
      }
      if (plan.steps.length === 0) return { kind: 'nothing-to-do' };
      return { kind: 'planned', commands: renderGuestCommands(plan) };
    },
    async grow(target, signal): Promise<GuestGrowthOutcome> {
      const guest = guestDiskOf(agentOf, target);
      const layout = await read(guest, signal);
      const plan = planOf(layout, guest.disk);
      const lines = plan.kind === 'grow' ? renderGuestCommands(plan) : [];
      const run = await runGuestGrowth(guest.agent, plan, {
        vm: guest.vm,
        read: linuxReadings(guest.agent, {
          disk: guest.disk,
          ...(options.readTimeoutMs === undefined ? {} : { timeoutMs: options.readTimeoutMs }),
        }),
        lock,
        ...(options.stepTimeoutMs === undefined ? {} : { stepTimeoutMs: options.stepTimeoutMs }),
        ...(signal ? { signal } : {}),
      });
      return outcomeOf(run, layout, lines);
    },
  };
}
