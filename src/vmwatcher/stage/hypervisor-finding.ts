import { Phase, WaitingFor } from '../expansion-phase.js';
import { expectedGuestBytes } from '../expected-guest-bytes.js';
import type { ProbeReading } from '../guest-probe.js';
import { StageReason } from '../stage-reason.js';
import type { ObservedSizes, VolumeExpansion } from '../volume-expansion.js';
import { guestProbeOptedOut } from '../guest-probe-opt-out.js';
import { GUEST_PROBE_ANNOTATION, type VirtualMachine } from '../../model/index.js';
import { guestProbeNamespaceListed } from '../guest-probe-namespaces.js';
import type { KubeVirtHandover, VmiView } from './kubevirt-finding.js';
import { readSize, bytesText } from './read-size.js';
import type { LayerFinding, Verdict } from './stage-verdict.js';
import { judgeHypervisorGrowth, type HypervisorGrowth } from './hypervisor-growth.js';

/** What the guest layer needs: the KubeVirt layer's handover, the disk's name and the probe's reading. */
export interface HypervisorHandover extends KubeVirtHandover {
  /** The disk for messages: its target (vda, sda), else its volume or claim name. */
  disk: string;
  probe: ProbeReading;
  /** libvirt's capacity of the grown disk. */
  hypervisorBytes: bigint;
}

/**
 * The hypervisor's layer, as the guest probe read it: no probe, nothing can be seen
 * (NoGuestProbe); else HypervisorResizing until the disk has grown (judgeHypervisorGrowth).
 * Records the probe's reading, the guest's side included (it is read in the same probe). Pure.
 */
export function hypervisorFinding(
  input: {
    expansion: VolumeExpansion;
    probe: ProbeReading | null;
    vm: VirtualMachine | undefined;
    guestProbeNamespaces?: readonly string[] | undefined;
  },
  handover: KubeVirtHandover,
): LayerFinding<HypervisorHandover> {
  const { view, expected, claim } = handover;
  const disk = `${view.status?.target ?? view.spec?.name ?? claim.name}`;
  const { probe } = input;
  if (
    probe === null &&
    !guestProbeOptedOut(input.vm) &&
    !guestProbeNamespaceListed(claim.namespace, input.guestProbeNamespaces)
  )
    return {
      sizes: {},
      pods: {},
      problems: [],
      verdict: unlistedVerdict(view, disk, expected, claim.namespace, input.guestProbeNamespaces!),
    };
  if (probe === null)
    return {
      sizes: {},
      pods: {},
      problems: [],
      verdict: noProbeVerdict(view, disk, expected, guestProbeOptedOut(input.vm)),
    };
  const previous = input.expansion.status?.sizes;
  const growth =
    probe.hypervisorBytes === undefined
      ? undefined
      : judgeHypervisorGrowth({
          volumeMode: view.volumeMode,
          readingBytes: probe.hypervisorBytes,
          targetBytes: expected,
          recordedStartBytes: bytesOf(previous?.hypervisorStart),
          previousBytes: bytesOf(previous?.hypervisor),
          oldCeilingBytes: oldCeiling(input.expansion, handover),
        });
  const sizes = probeSizes(probe, view, previous);
  if (growth?.state !== 'grown')
    return {
      sizes,
      pods: {},
      problems: [],
      verdict: hypervisorVerdict(view, disk, expected, probe, growth),
    };
  return {
    sizes,
    pods: {},
    problems: [],
    handover: { ...handover, disk, probe, hypervisorBytes: probe.hypervisorBytes! },
  };
}

function bytesOf(text: string | undefined): bigint | undefined {
  return text !== undefined && /^\d+$/.test(text) ? BigInt(text) : undefined;
}

/**
 * The most disk.img could hold at the VolumeExpansion's `from` (the PVC's capacity when the size
 * was requested); undefined without a readable `from` below the size.
 */
export function oldCeiling(
  expansion: VolumeExpansion,
  { claimSizes, view }: KubeVirtHandover,
): bigint | undefined {
  const from = readSize({ storage: expansion.spec?.from });
  if (from.bytes === undefined || from.bytes >= claimSizes.to) return undefined;
  return expectedGuestBytes({
    volumeMode: view.volumeMode,
    request: from.bytes,
    capacity: from.bytes,
    filesystemOverhead: view.status?.persistentVolumeClaimInfo?.filesystemOverhead,
  });
}

/**
 * The probe's sizes in the status: bytes, what the guest's size measures, and (Filesystem mode)
 * the hypervisor's first size for this expansion, kept from the previous status.
 */
function probeSizes(
  probe: ProbeReading,
  view: VmiView,
  previous: ObservedSizes | undefined,
): ObservedSizes {
  const hypervisor =
    probe.hypervisorBytes === undefined ? undefined : String(probe.hypervisorBytes);
  return {
    hypervisor,
    guest: probe.guestBytes === undefined ? undefined : String(probe.guestBytes),
    ...(probe.guestBytes !== undefined
      ? { guestEvidence: probe.guestEvidence ?? 'BlockDevice' }
      : {}),
    ...(probe.guestDevice !== undefined ? { guestDevice: probe.guestDevice } : {}),
    ...(view.volumeMode !== 'Block' && (previous?.hypervisorStart ?? hypervisor) !== undefined
      ? { hypervisorStart: previous?.hypervisorStart ?? hypervisor }
      : {}),
  };
}

function probeFailure(probe: ProbeReading): string {
  return probe.failure ? ` (the probe: ${probe.failure})` : '';
}

/** No guest probe: nothing past the VMI can be seen; the expansion waits here (not NoProgress). */
function noProbeVerdict(view: VmiView, disk: string, expected: bigint, optedOut: boolean): Verdict {
  const why = optedOut
    ? `The VM opts out of the guest probe (annotation ${GUEST_PROBE_ANNOTATION}: "off")`
    : 'No guest probe is configured';
  return {
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.NoGuestProbe,
    message:
      `The VMI ${view.vmiName} has the new size ${view.capacity.text}: virt-handler and virt-launcher grow disk ${disk} in the hypervisor next, and the guest should then see ${expected} bytes${view.volumeMode === 'Block' ? '' : ' at most'}. ` +
      `${why}, so voe cannot see the hypervisor's or the guest's size (KubeVirt records neither): check in the guest (lsblk), and grow its partition and filesystem there.`,
    progressPhase: Phase.HypervisorResizing,
  };
}

/** A VM outside --guest-probe-namespaces: not probed, so the guest cannot be verified. */
function unlistedVerdict(
  view: VmiView,
  disk: string,
  expected: bigint,
  namespace: string,
  namespaces: readonly string[],
): Verdict {
  return {
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.GuestUnverifiable,
    message:
      `The VMI ${view.vmiName} has the new size ${view.capacity.text}, and the guest should see ${expected} bytes${view.volumeMode === 'Block' ? '' : ' at most'} on disk ${disk}. ` +
      `The guest probe is limited to the namespaces ${namespaces.length ? namespaces.join(', ') : '(none)'} (--guest-probe-namespaces, chart value tracker.guestProbeNamespaces), not ${namespace}, so voe cannot verify it: ` +
      `check in the guest (lsblk), or list ${namespace} there.`,
    progressPhase: Phase.HypervisorResizing,
  };
}

/** The hypervisor's disk not grown yet (or unknown): virt-handler and virt-launcher grow it. */
function hypervisorVerdict(
  view: VmiView,
  disk: string,
  expected: bigint,
  probe: ProbeReading,
  growth: HypervisorGrowth | undefined,
): Verdict {
  const has = `The VMI ${view.vmiName} has the new size ${view.capacity.text}; the hypervisor's disk ${disk}`;
  const message =
    growth?.state === 'settling'
      ? `${has} has grown from ${growth.startBytes} to ${probe.hypervisorBytes} bytes; voe reads it again to see that it settled (virt-launcher sizes disk.img from the space the PVC's filesystem has, up to ${expected} bytes).`
      : growth?.startBytes !== undefined
        ? `${has} has ${probe.hypervisorBytes} bytes, not above the ${growth.startBytes} it started from (virt-handler and virt-launcher grow disk.img, up to ${expected} bytes)${probeFailure(probe)}.`
        : `${has} has ${bytesText(probe.hypervisorBytes)} bytes, below the ${expected} expected (virt-handler and virt-launcher grow it)${probeFailure(probe)}.`;
  return {
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.WaitingForHypervisor,
    message,
    progressPhase: Phase.HypervisorResizing,
  };
}
