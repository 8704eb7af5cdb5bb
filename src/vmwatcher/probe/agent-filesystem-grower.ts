import {
  planGuestGrowth,
  renderGuestCommands,
  type GuestGrowthPlan,
  type GuestLayout,
} from '../../fsresize/index.js';
import {
  DEFAULT_READ_TIMEOUT_MS,
  GuestRunError,
  linuxReadings,
  readFilesystemTotalBytes,
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

/** The mount point of the filesystem a plan grows: its filesystem step's device, as lsblk shows it. */
function mountPointOf(plan: GuestGrowthPlan, layout: GuestLayout): string | undefined {
  if (plan.kind !== 'grow') return undefined;
  const of = plan.steps.find((step) => step.expect.reading === 'filesystem')?.expect.of;
  return layout.blockDevices.find((device) => device.name === of)?.mountPoint ?? undefined;
}

/** guest-get-fsinfo's total-bytes of the grown mount point, before the run and after it. */
interface FsinfoTotals {
  mountPoint: string | undefined;
  before: number | undefined;
  after: number | undefined;
}

/**
 * A grown run's filesystem: its mount point and its size before and after, as the guest's agent
 * reports it (guest-get-fsinfo's total-bytes, what df shows), or, when the agent lists no size of
 * it, as the run's filesystem step read it (the filesystem's own size).
 */
function grownFilesystem(
  run: GuestGrowthRun,
  layout: GuestLayout,
  totals: FsinfoTotals,
): { mountPoint: string; beforeBytes: bigint; afterBytes: bigint } {
  const step = run.steps.find((s) => s.reading === 'filesystem');
  const device = layout.blockDevices.find((d) => d.name === step?.of);
  const fromAgent = totals.before !== undefined && totals.after !== undefined;
  const before = fromAgent ? totals.before : step?.beforeBytes;
  const after = fromAgent ? totals.after : (step?.afterBytes ?? step?.beforeBytes);
  return {
    mountPoint: device?.mountPoint ?? step?.of ?? '',
    beforeBytes: BigInt(before ?? 0),
    afterBytes: BigInt(after ?? 0),
  };
}

/** A grown run the agent shows no larger (guest-get-fsinfo): the growth is not proven. */
function notProven(totals: FsinfoTotals, ran: RanCommand[]): GuestGrowthOutcome | undefined {
  const { mountPoint, before, after } = totals;
  if (before === undefined || after === undefined || after > before) return undefined;
  return {
    kind: 'failed',
    code: 'GUESTRUN_SIZE_NOT_REACHED',
    message: `every step reached its size, but the guest agent's guest-get-fsinfo shows ${mountPoint} at ${after} bytes after the growth, not more than the ${before} bytes before: the guest's users do not see a larger filesystem; check it in the guest (df, and the filesystem's own tool)`,
    ran,
  };
}

function outcomeOf(
  run: GuestGrowthRun,
  layout: GuestLayout,
  lines: string[],
  totals: FsinfoTotals,
): GuestGrowthOutcome {
  const ran = ranCommands(run, lines);
  if (run.outcome === 'grown')
    return (
      notProven(totals, ran) ?? { kind: 'grown', ran, ...grownFilesystem(run, layout, totals) }
    );
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
 * the probe's virsh transport). A grown filesystem is proven by the agent's guest-get-fsinfo: its
 * total-bytes after the run must exceed those before (else GUESTRUN_SIZE_NOT_REACHED), and are
 * the sizes it answers; an agent that lists no size or refuses guest-get-fsinfo leaves the steps'
 * own readings.
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
      const mountPoint = mountPointOf(plan, layout);
      // guest-get-fsinfo's size of the mount point; none from an agent that refuses it (--block-rpcs).
      const total = async (): Promise<number | undefined> =>
        mountPoint === undefined
          ? undefined
          : readFilesystemTotalBytes(
              guest.agent,
              mountPoint,
              options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
              signal,
            ).catch(() => undefined);
      const before = await total();
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
      const after = run.outcome === 'grown' ? await total() : undefined;
      return outcomeOf(run, layout, lines, { mountPoint, before, after });
    },
  };
}
