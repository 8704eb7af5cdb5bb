import { Phase, WaitingFor } from '../expansion-phase.js';
import { StageReason } from '../stage-reason.js';
import type { VolumeExpansion } from '../volume-expansion.js';
import { oldCeiling, type HypervisorHandover } from './hypervisor-finding.js';
import { guestGrowthVerdict, type GuestGrowthInput } from './guest-growth-verdict.js';
import { bytesText } from './read-size.js';
import type { LayerFinding, Verdict } from './stage-verdict.js';

/**
 * The guest's layer once the hypervisor's disk grew: Stuck with GuestUnverifiable when the guest
 * cannot be asked; GuestVerifying until the guest shows what the hypervisor shows (its block
 * device at least the hypervisor's size; with a filesystem's size as the only evidence, a
 * filesystem larger than the old size could hold), then Completed; with a guest growth input
 * (a grower configured, the guest's block device seen grown), what guestGrowthVerdict makes of
 * it. Always a verdict. Pure.
 */
export function guestFinding(
  input: { expansion: VolumeExpansion; guestGrowth?: GuestGrowthInput | undefined },
  handover: HypervisorHandover,
): LayerFinding<never> {
  const verdict =
    handover.probe.guestUnverifiable !== undefined
      ? unverifiableVerdict(handover)
      : guestVerdict(input.expansion, handover);
  const grows =
    input.guestGrowth !== undefined &&
    verdict.reason === StageReason.GuestSeesNewSize &&
    handover.probe.guestEvidence !== 'Filesystem';
  return {
    sizes: {},
    pods: {},
    problems: [],
    verdict: grows ? guestGrowthVerdict(verdict, handover, input.guestGrowth!) : verdict,
  };
}

function probeFailure(handover: HypervisorHandover): string {
  return handover.probe.failure ? ` (the probe: ${handover.probe.failure})` : '';
}

/** The hypervisor grew and the guest cannot be asked: Stuck until the user makes it answerable (or checks by hand). */
function unverifiableVerdict({ view, disk, probe, hypervisorBytes }: HypervisorHandover): Verdict {
  return {
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.GuestUnverifiable,
    message:
      `The hypervisor's disk ${disk} has grown to ${hypervisorBytes} bytes, but voe cannot ask the guest of ${view.vmName ?? view.vmiName}: ${probe.guestUnverifiable}. ` +
      (probe.guestUnverifiableRemedy ??
        'Install and start qemu-guest-agent in the guest (the VMI then shows the condition AgentConnected), or check there with lsblk.'),
    progressPhase: Phase.GuestVerifying,
  };
}

/** GuestVerifying until the guest shows the hypervisor's size (or a grown filesystem), then Completed. */
function guestVerdict(expansion: VolumeExpansion, handover: HypervisorHandover): Verdict {
  const { view, disk, probe, hypervisorBytes, claim, claimSizes, expected } = handover;
  const filesystem = probe.guestEvidence === 'Filesystem';
  const needed = filesystem ? (oldCeiling(expansion, handover) ?? expected) : hypervisorBytes;
  const seen =
    probe.guestBytes !== undefined &&
    (filesystem ? probe.guestBytes > needed : probe.guestBytes >= needed);
  const guestOf = view.vmName ?? view.vmiName;
  if (!seen) {
    const grown = `The hypervisor's disk ${disk} has grown to ${hypervisorBytes} bytes`;
    return {
      phase: Phase.GuestVerifying,
      waitingFor: WaitingFor.Guest,
      reason: StageReason.WaitingForGuest,
      message: filesystem
        ? `${grown}; the guest's filesystem ${probe.guestDevice ?? ''} (the agent's filesystem list, guest-exec refused) has ${bytesText(probe.guestBytes)} bytes, no more than the ${needed} the old size held: grow the partition and filesystem in the guest${probeFailure(handover)}.`
        : `${grown}; the guest sees ${probe.guestDevice ? `${probe.guestDevice} at ` : ''}${bytesText(probe.guestBytes)} bytes, below the ${hypervisorBytes} the hypervisor shows${probeFailure(handover)}.`,
      progressPhase: Phase.GuestVerifying,
    };
  }
  return {
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    message: filesystem
      ? `The guest of ${guestOf} has grown its filesystem on disk ${disk} to ${probe.guestBytes} bytes, above the ${needed} the old size held (the hypervisor's disk has ${hypervisorBytes}): the expansion of ${claim.label} to ${claimSizes.toText} is complete.`
      : `The guest of ${guestOf} sees disk ${disk}${probe.guestDevice && probe.guestDevice !== disk ? ` (${probe.guestDevice})` : ''} at ${probe.guestBytes} bytes (the hypervisor shows ${hypervisorBytes}): the expansion of ${claim.label} to ${claimSizes.toText} is complete.`,
    progressPhase: undefined,
  };
}
