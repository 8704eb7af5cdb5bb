import {
  FINAL_PHASES,
  Phase,
  WaitingFor,
  type PhaseValue,
  type WaitingForValue,
} from './expansion-phase.js';
import { formatDuration } from './format-duration.js';
import type { ProbeReading } from './guest-probe.js';
import { StageReason, type StageReasonValue } from './stage-reason.js';
import { guestFinding } from './stage/guest-finding.js';
import type { GuestGrowthInput } from './stage/guest-growth-verdict.js';
import { hypervisorFinding } from './stage/hypervisor-finding.js';
import { kubeVirtFinding } from './stage/kubevirt-finding.js';
import { kubernetesFinding } from './stage/kubernetes-finding.js';
import type { LayerRecord, Verdict } from './stage/stage-verdict.js';
import type {
  ClaimEvent,
  KubeVirt,
  LonghornVolume,
  PersistentVolume,
  Pod,
  PersistentVolumeClaim,
  VirtualMachineInstance,
  VirtualMachine,
} from '../model/index.js';
import type { GuestFilesystemStatus, VolumeExpansion } from './volume-expansion.js';

/** Everything the phase is derived from: cache state only, never an event's payload. */
export interface StageInput {
  /** The VolumeExpansion (its spec says which size it follows; its status is the previous derivation). */
  expansion: VolumeExpansion;
  pvc: PersistentVolumeClaim;
  pv: PersistentVolume | undefined;
  /** The VM using the PVC (the one with a running VMI when several do). */
  vm: VirtualMachine | undefined;
  /** The VM's instance (or a standalone VMI using the PVC), if one exists. */
  vmi: VirtualMachineInstance | undefined;
  /** The virt-launcher and hotplug pods of the namespace (others are ignored). */
  pods: readonly Pod[];
  kubeVirt: KubeVirt | undefined;
  /** The PV's Longhorn volume (longhorn-system, named by spec.csi.volumeHandle), when Longhorn is served and has it. */
  longhornVolume?: LonghornVolume | undefined;
  /** Events about the PVC (external-resizer's offline-only and DeadlineExceeded Warnings). */
  claimEvents?: readonly ClaimEvent[];
  /** With a guest probe configured: the namespaces it may probe (--guest-probe-namespaces); undefined: every one. */
  guestProbeNamespaces?: readonly string[] | undefined;
  /** null: no guest probe is configured; else what it measured for this volume. */
  probe: ProbeReading | null;
  /** With a guest filesystem grower: the plan (not opted in) or the growth (opted in) once the guest sees the grown disk. */
  guestGrowth?: GuestGrowthInput | undefined;
  /** ms since the epoch (the tracker's clock). */
  now: number;
  /** How long a phase may go without progress before it is Stuck with NoProgress. */
  stuckAfterMs: number;
}

export interface Stage {
  phase: PhaseValue;
  waitingFor: WaitingForValue | undefined;
  reason: StageReasonValue | string;
  message: string;
  sizes: LayerRecord['sizes'];
  pods: LayerRecord['pods'];
  /** The phase the actors' writes put the expansion in (before stuck detection) and since when (ms); undefined once final. */
  progress: { phase: PhaseValue; since: number } | undefined;
  /** When to derive again even if nothing changes (the NoProgress deadline), ms from now. */
  recheckAfterMs: number | undefined;
  /** Malformed input found on the way (for the log): which field, its text. */
  problems: string[];
  /** What the guest's filesystem growth found or did, when a grower was asked. */
  guestFilesystem?: GuestFilesystemStatus | undefined;
}

/** Phases whose lack of progress turns into Stuck/NoProgress after stuckAfter. */
const PROGRESSING: ReadonlySet<PhaseValue> = new Set([
  Phase.ControllerResizing,
  Phase.NodeResizePending,
  Phase.NodeResizing,
  Phase.VMUpdating,
  Phase.HypervisorResizing,
  Phase.GuestVerifying,
]);

function parseTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The phase of one VolumeExpansion, derived level-based from what the other actors wrote
 * (docs/tracker.md "Phases" and "Upstream facts"): the
 * PVC's request against the size the object follows (a larger one supersedes it, a smaller one
 * rolls it back), the PVC's resize status in both spellings and its conditions, the PV's
 * capacity, the pods that hold the volume, the VMI's copy of the PVC's size, ExpandDisks, then
 * the guest probe. A final phase (Completed, RolledBack, Superseded) stays. A phase that has not
 * moved for `stuckAfterMs` becomes Stuck with NoProgress, naming the actor waited for. Pure.
 */
export function deriveStage(input: StageInput): Stage {
  const previous = input.expansion.status ?? {};
  if (previous.phase !== undefined && FINAL_PHASES.has(previous.phase)) return keptFinal(previous);
  const { verdict, sizes, pods, problems } = layeredVerdict(input);
  const stage: Stage = {
    ...verdict,
    sizes,
    pods,
    progress: undefined,
    recheckAfterMs: undefined,
    problems: [...problems],
  };
  if (verdict.progressPhase === undefined) return stage;
  return withStuckDetection(stage, verdict, previous, input);
}

/** A final phase stays as it was written. */
function keptFinal(previous: NonNullable<VolumeExpansion['status']>): Stage {
  return {
    phase: previous.phase!,
    waitingFor: previous.waitingFor,
    reason: previous.reason ?? '',
    message: previous.message ?? '',
    sizes: previous.sizes ?? {},
    pods: previous.pods ?? {},
    progress: undefined,
    recheckAfterMs: undefined,
    problems: [],
    guestFilesystem: previous.guestFilesystem,
  };
}

/**
 * Records since when the actors' writes hold the expansion in its progress phase, and turns a
 * phase that has not moved for stuckAfterMs into Stuck/NoProgress (not NoGuestProbe: nothing
 * would move it; not LonghornExpanding: Longhorn says it is still at work); before that, when to
 * look again.
 */
function withStuckDetection(
  stage: Stage,
  verdict: Verdict,
  previous: NonNullable<VolumeExpansion['status']>,
  input: StageInput,
): Stage {
  const progressPhase = verdict.progressPhase!;
  const previousSince =
    previous.progress?.phase === progressPhase ? parseTime(previous.progress.since) : undefined;
  const since = previousSince ?? input.now;
  const measured: Stage = { ...stage, progress: { phase: progressPhase, since } };
  const watched =
    verdict.phase === progressPhase &&
    PROGRESSING.has(verdict.phase) &&
    !UNWATCHED_REASONS.has(verdict.reason);
  if (!watched) return measured;
  const waited = input.now - since;
  if (waited < input.stuckAfterMs)
    return { ...measured, recheckAfterMs: input.stuckAfterMs - waited };
  return {
    ...measured,
    phase: Phase.Stuck,
    reason: StageReason.NoProgress,
    message:
      `No progress for ${formatDuration(waited)} in ${verdict.phase}, waiting for ${verdict.waitingFor ?? 'nobody'}: ` +
      `${verdict.message} ${NO_PROGRESS_ADVICE[verdict.waitingFor ?? WaitingFor.User]}`,
  };
}

/** Reasons that never become NoProgress. */
const UNWATCHED_REASONS: ReadonlySet<string> = new Set([
  StageReason.NoGuestProbe,
  StageReason.LonghornExpanding,
]);

const NO_PROGRESS_ADVICE: Readonly<Record<WaitingForValue, string>> = {
  [WaitingFor.ExternalResizer]:
    "Check the storage driver's csi-resizer sidecar (its log and Events on the PVC): is it running, and does its driver match the PV's?",
  [WaitingFor.Kubelet]:
    "Check the kubelet of the VM's node (its log, Events on the pod and PVC): it grows the filesystem only while a pod mounts the volume.",
  [WaitingFor.VirtController]:
    "Check virt-controller (its log): it copies the PVC's size into the VMI on every reconcile.",
  [WaitingFor.VirtHandler]:
    'Check virt-handler on the VM\'s node and the virt-launcher log ("libvirt failed to expand disk image"); restarting the VM grows the disk offline.',
  [WaitingFor.Guest]:
    'Check inside the guest: a SCSI disk may need a rescan (echo 1 > /sys/class/block/<dev>/device/rescan).',
  [WaitingFor.User]: '',
};

/**
 * The phase before stuck detection, layer by layer (docs/tracker.md "Phases"): Kubernetes
 * (the VolumeExpansion's spec, the request, external-resizer, kubelet), KubeVirt (the VM runs,
 * virt-controller, ExpandDisks), the hypervisor and the guest (the guest probe). Each layer
 * either holds the expansion with its verdict or hands on to the next; the stage carries the
 * first verdict and what every layer reached on the way read.
 */
function layeredVerdict(input: StageInput): LayerRecord & { verdict: Verdict } {
  const kubernetes = kubernetesFinding(input);
  if (kubernetes.verdict) return collected([kubernetes], kubernetes.verdict);
  const kubeVirt = kubeVirtFinding(input, kubernetes.handover);
  if (kubeVirt.verdict) return collected([kubernetes, kubeVirt], kubeVirt.verdict);
  const hypervisor = hypervisorFinding(input, kubeVirt.handover);
  if (hypervisor.verdict) return collected([kubernetes, kubeVirt, hypervisor], hypervisor.verdict);
  const guest = guestFinding(input, hypervisor.handover);
  return collected([kubernetes, kubeVirt, hypervisor, guest], guest.verdict!);
}

/** The layers' records as one: later layers' sizes and pods over earlier ones', problems in order. */
function collected(
  records: readonly LayerRecord[],
  verdict: Verdict,
): LayerRecord & { verdict: Verdict } {
  return {
    verdict,
    sizes: Object.assign({}, ...records.map((record) => record.sizes)),
    pods: Object.assign({}, ...records.map((record) => record.pods)),
    problems: records.flatMap((record) => record.problems),
  };
}
