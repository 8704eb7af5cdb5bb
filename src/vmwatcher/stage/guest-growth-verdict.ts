import {
  GROW_GUEST_FILESYSTEM_ANNOTATION,
  PAUSED,
  type VirtualMachineInstance,
} from '../../model/index.js';
import { Phase, WaitingFor } from '../expansion-phase.js';
import type {
  GuestGrowthOutcome,
  GuestGrowthPlanResult,
  RanCommand,
} from '../guest-filesystem-grower.js';
import type { GuestGrowthOptIn } from '../guest-growth-opt-in.js';
import { StageReason } from '../stage-reason.js';
import type { GuestFilesystemStatus } from '../volume-expansion.js';
import type { HypervisorHandover } from './hypervisor-finding.js';
import type { Verdict } from './stage-verdict.js';

/** The guest's layout could not be read (the grower threw): why. */
export interface GuestGrowthUnreadable {
  kind: 'unreadable';
  reason: string;
}

/**
 * What the tracker learnt of the guest's filesystem once the guest sees the grown disk (a
 * GuestFilesystemGrower is configured): without opt-in, the plan (the commands for the user);
 * with it, the growth's outcome, or undefined while the growth runs or has not started.
 */
export type GuestGrowthInput =
  | {
      optIn: Extract<GuestGrowthOptIn, { grow: false }>;
      plan: GuestGrowthPlanResult | GuestGrowthUnreadable;
    }
  | {
      optIn: Extract<GuestGrowthOptIn, { grow: true }>;
      outcome: GuestGrowthOutcome | GuestGrowthUnreadable | undefined;
    };

/** Why the growth must not start now: the VMI migrates or is paused (docs/guest-growth.md). Pure. */
export function growthHeldBy(
  vmi: VirtualMachineInstance | undefined,
): 'migrating' | 'paused' | undefined {
  const migration = vmi?.status?.migrationState;
  if (migration && migration.completed !== true && migration.failed !== true) return 'migrating';
  const paused = vmi?.status?.conditions?.some(
    (condition) => condition.type === PAUSED && condition.status === 'True',
  );
  return paused ? 'paused' : undefined;
}

/** The commands as one line a user pastes in the guest's shell: each runs once the one before succeeded. */
const joined = (commands: readonly string[]): string => commands.join(' && ');

const sentence = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

const ranText = (ran: readonly RanCommand[]): string =>
  ran
    .map((command) =>
      command.exitCode === undefined
        ? `${command.command} (did not exit)`
        : `${command.command} (exit ${command.exitCode})`,
    )
    .join('; ');

/** The most of one command's output the status keeps (the object stays small). */
export const OUTPUT_KEPT_CHARS = 2048;

const records = (ran: readonly RanCommand[]): GuestFilesystemStatus['commands'] =>
  ran.map(({ command, exitCode, output }) => ({
    command,
    ...(exitCode === undefined ? {} : { exitCode }),
    ...(output === undefined
      ? {}
      : {
          output:
            output.length > OUTPUT_KEPT_CHARS ? `${output.slice(0, OUTPUT_KEPT_CHARS)}…` : output,
        }),
  }));

/** `voe guest grow NAMESPACE/VM --disk VOLUME` for the disk, as the user runs it. */
function growCommand(handover: HypervisorHandover): string {
  const { view } = handover;
  const namespace = view.vmi.metadata?.namespace ?? '';
  const vm = view.vmName ?? view.vmi.metadata?.name ?? '';
  const volume = view.spec?.name ?? view.status?.name;
  return `voe guest grow ${namespace}/${vm}${volume ? ` --disk ${volume}` : ''}`;
}

/**
 * The guest's layer once the guest sees the grown disk and a grower is configured
 * (docs/guest-growth.md "In the tracker"): `completed` is the verdict the guest's size alone
 * gives (Completed, GuestSeesNewSize).
 * - Not opted in: Completed as before, its message giving the commands for that guest's layout
 *   (or why there are none: already grown, refused with the remedy, the layout unreadable).
 * - Opted in: GuestFilesystemGrowing while the growth runs (or waits for a migration or a pause
 *   to end); then Completed with GuestFilesystemGrown and the filesystem's bytes before and
 *   after, or, refused or failed, Completed at block level with GuestFilesystemNotGrown, the
 *   reason, the remedy and the commands run.
 * Pure.
 */
export function guestGrowthVerdict(
  completed: Verdict,
  handover: HypervisorHandover,
  growth: GuestGrowthInput,
): Verdict {
  return 'plan' in growth
    ? plannedVerdict(completed, handover, growth)
    : grownVerdict(completed, handover, growth.optIn, growth.outcome);
}

function plannedVerdict(
  completed: Verdict,
  handover: HypervisorHandover,
  growth: Extract<GuestGrowthInput, { plan: unknown }>,
): Verdict {
  const { plan, optIn } = growth;
  const byVoe =
    optIn.why === 'off'
      ? `${growCommand(handover)} does it once`
      : `${growCommand(handover)} does it once, or the annotation ${GROW_GUEST_FILESYSTEM_ANNOTATION}: "true" on the VM (or its Namespace) has voe do it at each expansion`;
  const partOf = `disk ${handover.probe.guestDevice ?? handover.disk}`;
  switch (plan.kind) {
    case 'planned':
      return withFilesystem(
        completed,
        `The partition and filesystem on ${partOf} keep their old size until grown in the guest: run there ${joined(plan.commands)} (${byVoe}).`,
        { result: 'Planned', commands: plan.commands.map((command) => ({ command })) },
      );
    case 'nothing-to-do':
      return withFilesystem(completed, `The filesystem on ${partOf} already fills it.`, {
        result: 'NothingToDo',
      });
    case 'refused':
      return withFilesystem(
        completed,
        `Its filesystem cannot be grown from outside: ${plan.reason} (${plan.code}); ${plan.remedy}.`,
        { result: 'Refused', code: plan.code },
      );
    case 'unreadable':
      return withFilesystem(
        completed,
        `The guest's layout could not be read (${plan.reason}), so voe cannot give the commands: grow the partition and filesystem on ${partOf} in the guest (docs/guest-growth.md).`,
        { result: 'Unreadable' },
      );
  }
}

function grownVerdict(
  completed: Verdict,
  handover: HypervisorHandover,
  optIn: Extract<GuestGrowthOptIn, { grow: true }>,
  outcome: GuestGrowthOutcome | GuestGrowthUnreadable | undefined,
): Verdict {
  const device = handover.probe.guestDevice ?? handover.disk;
  if (outcome === undefined) return growingVerdict(handover, optIn);
  const notGrown = (why: string, status: GuestFilesystemStatus): Verdict => ({
    ...withFilesystem(completed, `Its filesystem was not grown: ${why}`, status),
    reason: StageReason.GuestFilesystemNotGrown,
  });
  const retry = `Then ${growCommand(handover)} does what is left (each step checks the size first).`;
  switch (outcome.kind) {
    case 'grown':
      return {
        ...withFilesystem(
          completed,
          `voe grew its filesystem ${outcome.mountPoint} on ${device} from ${outcome.beforeBytes} to ${outcome.afterBytes} bytes (${ranText(outcome.ran)}).`,
          {
            result: 'Grown',
            mountPoint: outcome.mountPoint,
            beforeBytes: String(outcome.beforeBytes),
            afterBytes: String(outcome.afterBytes),
            commands: records(outcome.ran),
          },
        ),
        reason: StageReason.GuestFilesystemGrown,
      };
    case 'nothing-to-do':
      return {
        ...withFilesystem(completed, `Its filesystem on ${device} already fills the disk.`, {
          result: 'NothingToDo',
        }),
        reason: StageReason.GuestFilesystemGrown,
      };
    case 'refused':
      return notGrown(
        `${outcome.reason} (${outcome.code}); nothing ran. ${sentence(outcome.remedy)}; then ${growCommand(handover)} --dry-run shows what is left.`,
        {
          result: 'Refused',
          code: outcome.code,
        },
      );
    case 'failed':
      return notGrown(
        `${outcome.message} (${outcome.code}); ran ${ranText(outcome.ran) || 'nothing'}, and stopped there. Fix the cause (the output of each command is in status.guestFilesystem and in the VM's Events). ${retry}`,
        { result: 'Failed', code: outcome.code, commands: records(outcome.ran) },
      );
    case 'unreadable':
      return notGrown(
        `the guest's layout could not be read (${outcome.reason}); nothing ran. Check the guest agent. ${retry}`,
        { result: 'Unreadable' },
      );
  }
}

/** GuestFilesystemGrowing: the growth runs, or waits for a migration or a pause to end. */
function growingVerdict(
  handover: HypervisorHandover,
  optIn: Extract<GuestGrowthOptIn, { grow: true }>,
): Verdict {
  const { view, probe, hypervisorBytes } = handover;
  const by =
    optIn.by === 'vm'
      ? 'the VM opts in'
      : `its Namespace ${view.vmi.metadata?.namespace ?? ''} opts in`;
  const held = growthHeldBy(view.vmi);
  return {
    phase: Phase.GuestFilesystemGrowing,
    waitingFor: WaitingFor.Guest,
    reason: StageReason.GrowingGuestFilesystem,
    message:
      `The guest of ${view.vmName ?? view.vmiName} sees disk ${handover.disk} (${probe.guestDevice ?? handover.disk}) at ${probe.guestBytes} bytes (the hypervisor shows ${hypervisorBytes}), and ${by} (${GROW_GUEST_FILESYSTEM_ANNOTATION}): ` +
      (held
        ? `voe grows its partition and filesystem through the guest agent once the VMI is no longer ${held}.`
        : 'voe grows its partition and filesystem through the guest agent.'),
    progressPhase: Phase.GuestFilesystemGrowing,
  };
}

/** The Completed verdict with a sentence about the guest's filesystem and its status record. */
function withFilesystem(
  completed: Verdict,
  sentence: string,
  guestFilesystem: GuestFilesystemStatus,
): Verdict {
  return { ...completed, message: `${completed.message} ${sentence}`, guestFilesystem };
}
