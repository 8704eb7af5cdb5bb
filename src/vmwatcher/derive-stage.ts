import { parseQuantityCeil } from '../kube/index.js';
import { expandDisksState, isVmiRunning } from '../admission/index.js';
import { expandDisksOffRemedy } from './expand-disks-off-remedy.js';
import { expectedGuestBytes } from './expected-guest-bytes.js';
import {
  FINAL_PHASES,
  Phase,
  WaitingFor,
  type PhaseValue,
  type WaitingForValue,
} from './expansion-phase.js';
import { formatDuration } from './format-duration.js';
import type { ProbeReading } from './guest-probe.js';
import { readResizeState, type ResizeState } from './read-resize-state.js';
import { StageReason, type StageReasonValue } from './stage-reason.js';
import type {
  KubeVirt,
  PersistentVolume,
  Pod,
  TrackedPvc,
  TrackedVmi,
  TrackedVolumeStatus,
  VirtualMachine,
  VmVolume,
} from './tracker-objects.js';
import type { ObservedSizes, VolumeExpansion, VolumePods } from './volume-expansion.js';
import { volumeHolders } from './volume-pods.js';

/** Everything the phase is derived from: cache state only, never an event's payload. */
export interface StageInput {
  /** The VolumeExpansion (its spec says which size it follows; its status is the previous derivation). */
  expansion: VolumeExpansion;
  pvc: TrackedPvc;
  pv: PersistentVolume | undefined;
  /** The VM using the PVC (the one with a running VMI when several do). */
  vm: VirtualMachine | undefined;
  /** The VM's instance (or a standalone VMI using the PVC), if one exists. */
  vmi: TrackedVmi | undefined;
  /** The virt-launcher and hotplug pods of the namespace (others are ignored). */
  pods: readonly Pod[];
  kubeVirt: KubeVirt | undefined;
  /** null: no guest probe is configured; else what it measured for this volume. */
  probe: ProbeReading | null;
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
  sizes: ObservedSizes;
  pods: VolumePods;
  /** The phase the actors' writes put the expansion in (before stuck detection) and since when (ms); undefined once final. */
  progress: { phase: PhaseValue; since: number } | undefined;
  /** When to derive again even if nothing changes (the NoProgress deadline), ms from now. */
  recheckAfterMs: number | undefined;
  /** Malformed input found on the way (for the log): which field, its text. */
  problems: string[];
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

interface Verdict {
  phase: PhaseValue;
  waitingFor: WaitingForValue | undefined;
  reason: StageReasonValue | string;
  message: string;
  /** The phase NoProgress is measured on; undefined for final phases and Infeasible. */
  progressPhase: PhaseValue | undefined;
}

/** A size read from an object: its text as written, and bytes when it is a quantity. */
interface Size {
  text: string | undefined;
  bytes: bigint | undefined;
  malformed: boolean;
}

function readSize(record: Record<string, unknown> | undefined): Size {
  const raw = record?.['storage'];
  if (raw === undefined || raw === null)
    return { text: undefined, bytes: undefined, malformed: false };
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  if (typeof raw !== 'string' && typeof raw !== 'number')
    return { text, bytes: undefined, malformed: true };
  try {
    return { text, bytes: parseQuantityCeil(String(raw).trim()), malformed: false };
  } catch {
    return { text, bytes: undefined, malformed: true };
  }
}

function text(bytes: bigint | undefined): string {
  return bytes === undefined ? 'unknown' : String(bytes);
}

/** The VMI volume that uses the claim: its spec entry and its status entry. */
function vmiVolume(
  vmi: TrackedVmi,
  claimName: string,
): { spec: VmVolume | undefined; status: TrackedVolumeStatus | undefined } {
  const spec = (vmi.spec?.volumes ?? []).find(
    (volume) => (volume.persistentVolumeClaim?.claimName ?? volume.dataVolume?.name) === claimName,
  );
  const status = (vmi.status?.volumeStatus ?? []).find(
    (entry) =>
      entry.persistentVolumeClaimInfo?.claimName === claimName ||
      (spec?.name !== undefined && entry.name === spec.name),
  );
  return { spec, status };
}

function isHotplugged(
  spec: VmVolume | undefined,
  status: TrackedVolumeStatus | undefined,
): boolean {
  return (
    spec?.persistentVolumeClaim?.hotpluggable === true ||
    spec?.dataVolume?.hotpluggable === true ||
    (status?.hotplugVolume !== undefined && status.hotplugVolume !== null)
  );
}

function parseTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The phase of one VolumeExpansion, derived level-based from what the other actors wrote
 * (reference/kubernetes-expansion.md, reference/kubevirt.md; docs/tracker.md "Phases"): the
 * PVC's request against the size the object follows (a larger one supersedes it, a smaller one
 * rolls it back), the PVC's resize status in both spellings and its conditions, the PV's
 * capacity, the pods that hold the volume, the VMI's copy of the PVC's size, ExpandDisks, then
 * the guest probe. A final phase (Completed, RolledBack, Superseded) stays. A phase that has not
 * moved for `stuckAfterMs` becomes Stuck with NoProgress, naming the actor waited for. Pure.
 */
export function deriveStage(input: StageInput): Stage {
  const previous = input.expansion.status ?? {};
  if (previous.phase !== undefined && FINAL_PHASES.has(previous.phase)) return keptFinal(previous);
  const problems: string[] = [];
  const sizes: ObservedSizes = {};
  const pods: VolumePods = {};
  const verdict = underlying(input, sizes, pods, problems);
  const stage: Stage = {
    ...verdict,
    sizes,
    pods,
    progress: undefined,
    recheckAfterMs: undefined,
    problems,
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
  };
}

/**
 * Records since when the actors' writes hold the expansion in its progress phase, and turns a
 * phase that has not moved for stuckAfterMs into Stuck/NoProgress (not NoGuestProbe: nothing
 * would move it); before that, when to look again.
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
  stage.progress = { phase: progressPhase, since };
  const watched =
    verdict.phase === progressPhase &&
    PROGRESSING.has(verdict.phase) &&
    verdict.reason !== StageReason.NoGuestProbe;
  if (!watched) return stage;
  const waited = input.now - since;
  if (waited < input.stuckAfterMs) {
    stage.recheckAfterMs = input.stuckAfterMs - waited;
    return stage;
  }
  return {
    ...stage,
    phase: Phase.Stuck,
    reason: StageReason.NoProgress,
    message:
      `No progress for ${formatDuration(waited)} in ${verdict.phase}, waiting for ${verdict.waitingFor ?? 'nobody'}: ` +
      `${verdict.message} ${NO_PROGRESS_ADVICE[verdict.waitingFor ?? WaitingFor.User]}`,
  };
}

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

/** What the steps of one derivation share: the input, the claim's names, and what they record. */
interface Derivation {
  input: StageInput;
  namespace: string;
  claimName: string;
  /** namespace/name of the PVC, for messages. */
  claim: string;
  sizes: ObservedSizes;
  pods: VolumePods;
  problems: string[];
}

/** The sizes of the PVC and its PV, read once. */
interface ClaimSizes {
  /** The size this VolumeExpansion follows (spec.to) and its text. */
  to: bigint;
  toText: string;
  request: Size;
  capacity: Size;
  allocated: Size;
  pv: Size;
}

/** The running VMI's view of the volume (KubeVirt's part). */
interface VmiView {
  vmi: TrackedVmi;
  /** namespace/name of the VMI, for messages. */
  vmiName: string;
  vmName: string | undefined;
  spec: VmVolume | undefined;
  status: TrackedVolumeStatus | undefined;
  capacity: Size;
  requests: Size;
}

/** Records a malformed size in the problems (for the log). */
function note(d: Derivation, where: string, size: Size): void {
  if (size.malformed) d.problems.push(`${where} is ${JSON.stringify(size.text)}, not a quantity`);
}

/**
 * The phase before stuck detection: the VolumeExpansion's own spec, the user's request, then
 * Kubernetes' part (external-resizer, kubelet), then KubeVirt's (virt-controller, ExpandDisks,
 * virt-handler) and the guest's, each step returning a verdict or handing on.
 */
function underlying(
  input: StageInput,
  sizes: ObservedSizes,
  pods: VolumePods,
  problems: string[],
): Verdict {
  const namespace = input.pvc.metadata?.namespace ?? '';
  const claimName = input.pvc.metadata?.name ?? '';
  const d: Derivation = {
    input,
    namespace,
    claimName,
    claim: `${namespace}/${claimName}`,
    sizes,
    pods,
    problems,
  };
  const target = followedSize(d);
  if ('phase' in target) return target;
  const claimSizes = readClaimSizes(d, target);
  const request = requestVerdict(d, claimSizes) ?? malformedClaimVerdict(claimSizes);
  if (request) return request;
  const kubernetes = kubernetesPart(d, claimSizes);
  if (kubernetes) return kubernetes;
  return kubeVirtPart(d, claimSizes);
}

/** The size the object follows; a spec the tracker did not write (edited by hand) is Stuck. */
function followedSize(d: Derivation): { to: bigint; toText: string } | Verdict {
  const { expansion } = d.input;
  const specTo = expansion.spec?.to;
  let to: bigint | undefined;
  try {
    to = typeof specTo === 'string' ? parseQuantityCeil(specTo.trim()) : undefined;
  } catch {
    to = undefined;
  }
  if (to !== undefined && to > 0n && expansion.spec?.pvcName === d.claimName)
    return { to, toText: specTo! };
  const why =
    expansion.spec?.pvcName !== d.claimName
      ? `spec.pvcName is ${JSON.stringify(expansion.spec?.pvcName)}, not the PVC it belongs to (${d.claimName})`
      : `spec.to is ${JSON.stringify(specTo)}, not a positive quantity`;
  d.problems.push(why);
  return {
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.InvalidVolumeExpansion,
    message:
      `This VolumeExpansion was changed by hand: ${why}. The tracker writes these objects itself and no longer follows this one; ` +
      `delete it, and the tracker creates a new one for the PVC's current request.`,
    progressPhase: undefined,
  };
}

/** The PVC's request, capacity and allocatedResources and the PV's capacity, recorded in sizes. */
function readClaimSizes(d: Derivation, followed: { to: bigint; toText: string }): ClaimSizes {
  const { pvc } = d.input;
  const request = readSize(pvc.spec?.resources?.requests);
  const capacity = readSize(pvc.status?.capacity);
  const allocated = readSize(pvc.status?.allocatedResources);
  const pv = readSize(d.input.pv?.spec?.capacity);
  d.sizes.request = request.text;
  d.sizes.pvcCapacity = capacity.text;
  d.sizes.allocated = allocated.text;
  d.sizes.pv = pv.text;
  note(d, 'the PVC spec.resources.requests.storage', request);
  note(d, 'the PVC status.capacity.storage', capacity);
  note(d, 'the PV spec.capacity.storage', pv);
  return { ...followed, request, capacity, allocated, pv };
}

/** The user's request against the size followed: larger supersedes, smaller rolls back. */
function requestVerdict(d: Derivation, s: ClaimSizes): Verdict | undefined {
  const { request, capacity, to, toText } = s;
  if (request.bytes !== undefined && request.bytes > to) {
    return {
      phase: Phase.Superseded,
      waitingFor: undefined,
      reason: StageReason.NewerRequest,
      message: `The request of ${d.claim} was raised to ${request.text}: another VolumeExpansion follows that size; this one (${toText}) ends here.`,
      progressPhase: undefined,
    };
  }
  if (request.bytes === undefined || request.bytes >= to) return undefined;
  const resize = readResizeState(d.input.pvc);
  const afterFailure =
    d.input.expansion.status?.phase === Phase.Infeasible ||
    resize.status === 'ControllerResizeInfeasible' ||
    resize.status === 'NodeResizeInfeasible';
  return {
    phase: Phase.RolledBack,
    waitingFor: undefined,
    reason: StageReason.RequestLowered,
    message:
      `The request of ${d.claim} was lowered to ${request.text}${afterFailure ? ' after the expansion failed' : ''}: ` +
      `the expansion to ${toText} will not happen${request.bytes > (capacity.bytes ?? 0n) ? `; Kubernetes now works towards ${request.text}` : ''}.`,
    progressPhase: undefined,
  };
}

/** A PVC capacity or PV capacity that is not a quantity: nothing can be said past it. */
function malformedClaimVerdict(s: ClaimSizes): Verdict | undefined {
  if (!s.capacity.malformed && !s.pv.malformed) return undefined;
  return malformed(
    s.capacity.malformed ? 'the PVC status.capacity.storage' : 'the PV spec.capacity.storage',
    s.capacity.malformed ? s.capacity : s.pv,
    s.capacity.malformed ? WaitingFor.Kubelet : WaitingFor.ExternalResizer,
    Phase.ControllerResizing,
  );
}

function vmiRunning(input: StageInput): boolean {
  return input.vmi !== undefined && isVmiRunning(input.vmi);
}

function vmNameOf(input: StageInput): string | undefined {
  return input.vm?.metadata?.name ?? input.vmi?.metadata?.name;
}

/** Records the pods that hold the volume; returns them. */
function recordHolders(d: Derivation, vmi: TrackedVmi): ReturnType<typeof volumeHolders> {
  const holders = volumeHolders(vmi, d.input.pods, d.claimName);
  d.pods.launcher = holders.launcher?.metadata?.name;
  d.pods.hotplug = holders.hotplug?.metadata?.name;
  return holders;
}

/**
 * Kubernetes' part while status.capacity is below the size: external-resizer, then kubelet
 * (which grows the filesystem only of a volume a pod mounts). A resize state about another size
 * (the allocatedResources of a request since lowered) says nothing about this one yet. Undefined
 * once the PVC's capacity reached the size.
 */
function kubernetesPart(d: Derivation, s: ClaimSizes): Verdict | undefined {
  const resize = readResizeState(d.input.pvc);
  const current =
    s.allocated.bytes === undefined || s.allocated.bytes === s.to ? resize : NO_RESIZE_STATE;
  const infeasible = infeasibleVerdict(current, d.claim, s.toText, s.capacity.text);
  if (infeasible) return infeasible;
  if (s.capacity.bytes !== undefined && s.capacity.bytes >= s.to) return undefined;
  const kubernetes = kubernetesVerdict(current, s.pv.bytes, s.to, d.claim, s.toText, s.pv.text);
  if (kubernetes.phase === Phase.ControllerResizing) return kubernetes;
  if (!vmiRunning(d.input)) return stopped(kubernetes.phase, vmNameOf(d.input), d.claim, 'node');
  return hotplugUnmountedVerdict(d, kubernetes.phase) ?? kubernetes;
}

/** Node expansion of a hotplugged Filesystem volume that no current hotplug pod mounts: Stuck. */
function hotplugUnmountedVerdict(d: Derivation, nodePhase: PhaseValue): Verdict | undefined {
  const vmi = d.input.vmi!;
  const { spec, status } = vmiVolume(vmi, d.claimName);
  const holders = recordHolders(d, vmi);
  const filesystem = (d.input.pvc.spec?.volumeMode ?? 'Filesystem') === 'Filesystem';
  if (!filesystem || !isHotplugged(spec, status) || holders.hotplugHolds) return undefined;
  const vmName = vmNameOf(d.input);
  return {
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.HotplugVolumeNotMounted,
    message:
      `${d.claim} is a hotplugged Filesystem volume of ${vmName ?? 'the VM'} that no current hotplug pod mounts` +
      `${holders.hotplug ? ` (${holders.hotplug.metadata?.name} lists it without mounting it)` : ''}, ` +
      `so kubelet never grows its filesystem and the disk never grows. Restart the VM, or unplug the volume and plug it again (virtctl removevolume / addvolume).`,
    progressPhase: nodePhase,
  };
}

/**
 * KubeVirt's part once the PVC grew: virt-controller copies the size into the VMI, ExpandDisks
 * lets virt-handler and virt-launcher grow the disk, and the guest probe sees the hypervisor and
 * the guest.
 */
function kubeVirtPart(d: Derivation, s: ClaimSizes): Verdict {
  if (!vmiRunning(d.input)) return stopped(Phase.VMUpdating, vmNameOf(d.input), d.claim, 'vm');
  const view = readVmiView(d);
  if (view.capacity.malformed || view.requests.malformed) {
    return malformed(
      `the VMI ${view.vmiName} persistentVolumeClaimInfo.${view.capacity.malformed ? 'capacity' : 'requests'}.storage`,
      view.capacity.malformed ? view.capacity : view.requests,
      WaitingFor.VirtController,
      Phase.VMUpdating,
    );
  }
  const updating = vmiUpdatingVerdict(d, s, view);
  if (updating) return updating;
  const gate = expandDisksOffVerdict(d, view);
  if (gate) return gate;
  const expected = expectedGuestBytes({
    volumeMode: view.status?.persistentVolumeClaimInfo?.volumeMode ?? d.input.pvc.spec?.volumeMode,
    request: s.request.bytes ?? s.to,
    capacity: s.capacity.bytes!,
    filesystemOverhead: view.status?.persistentVolumeClaimInfo?.filesystemOverhead,
  });
  d.sizes.expected = String(expected);
  return guestPart(d, s, view, expected);
}

/** The VMI's volume, its pods and its copy of the PVC's sizes, recorded in sizes. */
function readVmiView(d: Derivation): VmiView {
  const vmi = d.input.vmi!;
  const vmiName = `${vmi.metadata?.namespace ?? d.namespace}/${vmi.metadata?.name ?? ''}`;
  const { spec, status } = vmiVolume(vmi, d.claimName);
  recordHolders(d, vmi);
  const info = status?.persistentVolumeClaimInfo;
  const capacity = readSize(info?.capacity);
  const requests = readSize(info?.requests);
  d.sizes.vmiCapacity = capacity.text;
  d.sizes.vmiRequests = requests.text;
  note(d, `the VMI ${vmiName} persistentVolumeClaimInfo.capacity.storage`, capacity);
  note(d, `the VMI ${vmiName} persistentVolumeClaimInfo.requests.storage`, requests);
  return { vmi, vmiName, vmName: vmNameOf(d.input), spec, status, capacity, requests };
}

/** VMUpdating while the VMI's copy (both capacity and requests; capacity only before KubeVirt v0.50) is below the size. */
function vmiUpdatingVerdict(d: Derivation, s: ClaimSizes, view: VmiView): Verdict | undefined {
  const { capacity, requests, status, vmiName } = view;
  const vmiTarget =
    requests.bytes !== undefined && capacity.bytes !== undefined
      ? requests.bytes < capacity.bytes
        ? requests.bytes
        : capacity.bytes
      : capacity.bytes;
  if (vmiTarget !== undefined && vmiTarget >= s.to) return undefined;
  return {
    phase: Phase.VMUpdating,
    waitingFor: WaitingFor.VirtController,
    reason: StageReason.WaitingForVmi,
    message: status
      ? `${d.claim} has grown to ${s.capacity.text}; virt-controller has not copied it into the VMI ${vmiName} yet (persistentVolumeClaimInfo capacity ${capacity.text ?? 'unset'}, requests ${requests.text ?? 'unset'}).`
      : `${d.claim} has grown to ${s.capacity.text}; the VMI ${vmiName} has no volumeStatus entry for it yet (virt-controller writes it).`,
    progressPhase: Phase.VMUpdating,
  };
}

/** The VMI has the size but ExpandDisks is not effectively on: KubeVirt does not grow the running disk. */
function expandDisksOffVerdict(d: Derivation, view: VmiView): Verdict | undefined {
  const gate = d.input.kubeVirt
    ? expandDisksState(d.input.kubeVirt)
    : { enabled: false, why: 'no KubeVirt CR was found' };
  if (gate.enabled) return undefined;
  const kubeVirt = d.input.kubeVirt;
  const remedy = expandDisksOffRemedy({
    volumeMode: view.status?.persistentVolumeClaimInfo?.volumeMode ?? d.input.pvc.spec?.volumeMode,
    version: kubeVirt?.status?.observedKubeVirtVersion,
    disabledOnly:
      kubeVirt?.spec?.configuration?.developerConfiguration?.disabledFeatureGates?.includes(
        'ExpandDisks',
      ) ?? false,
  });
  return {
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.ExpandDisksOff,
    message: `The VMI ${view.vmiName} has the new size ${view.capacity.text}, but ExpandDisks is not on (${gate.why}), so KubeVirt does not grow the disk of the running VM. ${remedy}`,
    progressPhase: Phase.HypervisorResizing,
  };
}

/**
 * The hypervisor's and the guest's part, as the guest probe saw them: HypervisorResizing until
 * libvirt's capacity reaches the expected size, then GuestVerifying until the guest shows it
 * (its block device; with a filesystem's size as the only evidence, a filesystem larger than the
 * old size could hold), then Completed. No probe: NoGuestProbe; no guest agent: Stuck.
 */
function guestPart(d: Derivation, s: ClaimSizes, view: VmiView, expected: bigint): Verdict {
  const { probe } = d.input;
  const disk = `${view.status?.target ?? view.spec?.name ?? d.claimName}`;
  if (probe === null) return noProbeVerdict(view, disk, expected);
  recordProbe(d, probe);
  if (probe.hypervisorBytes === undefined || probe.hypervisorBytes < expected)
    return hypervisorVerdict(view, disk, expected, probe);
  if (probe.guestUnverifiable !== undefined)
    return unverifiableVerdict(view, disk, expected, probe);
  return guestVerdict(d, s, view, disk, expected, probe);
}

function probeFailure(probe: ProbeReading): string {
  return probe.failure ? ` (the probe: ${probe.failure})` : '';
}

/** No guest probe: nothing past the VMI can be seen; the expansion waits here (not NoProgress). */
function noProbeVerdict(view: VmiView, disk: string, expected: bigint): Verdict {
  return {
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.NoGuestProbe,
    message:
      `The VMI ${view.vmiName} has the new size ${view.capacity.text}: virt-handler and virt-launcher grow disk ${disk} in the hypervisor next, and the guest should then see ${expected} bytes. ` +
      "No guest probe is configured, so voe cannot see the hypervisor's or the guest's size (KubeVirt records neither): check in the guest (lsblk), and grow its partition and filesystem there.",
    progressPhase: Phase.HypervisorResizing,
  };
}

/** The hypervisor's disk below the expected size (or unknown): virt-handler and virt-launcher grow it. */
function hypervisorVerdict(
  view: VmiView,
  disk: string,
  expected: bigint,
  probe: ProbeReading,
): Verdict {
  return {
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.WaitingForHypervisor,
    message: `The VMI ${view.vmiName} has the new size ${view.capacity.text}; the hypervisor's disk ${disk} has ${text(probe.hypervisorBytes)} bytes, below the ${expected} expected (virt-handler and virt-launcher grow it)${probeFailure(probe)}.`,
    progressPhase: Phase.HypervisorResizing,
  };
}

/** The hypervisor grew and no guest agent answers: Stuck until the user installs one (or checks by hand). */
function unverifiableVerdict(
  view: VmiView,
  disk: string,
  expected: bigint,
  probe: ProbeReading,
): Verdict {
  return {
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.GuestUnverifiable,
    message:
      `The hypervisor's disk ${disk} has grown to ${probe.hypervisorBytes} bytes (${expected} expected), but voe cannot ask the guest of ${view.vmName ?? view.vmiName}: ${probe.guestUnverifiable}. ` +
      'Install and start qemu-guest-agent in the guest (the VMI then shows the condition AgentConnected), or check there with lsblk.',
    progressPhase: Phase.GuestVerifying,
  };
}

/**
 * GuestVerifying until the guest shows the size (its block device at least the expected size; a
 * filesystem, when that is the only evidence, larger than the old size could hold), then Completed.
 */
function guestVerdict(
  d: Derivation,
  s: ClaimSizes,
  view: VmiView,
  disk: string,
  expected: bigint,
  probe: ProbeReading,
): Verdict {
  const filesystem = probe.guestEvidence === 'Filesystem';
  const needed = filesystem ? filesystemFloor(d, s, view) : expected;
  const seen =
    probe.guestBytes !== undefined &&
    (filesystem ? probe.guestBytes > needed : probe.guestBytes >= needed);
  const guestOf = view.vmName ?? view.vmiName;
  if (!seen) {
    const grown = `The hypervisor's disk ${disk} has grown to ${probe.hypervisorBytes} bytes`;
    return {
      phase: Phase.GuestVerifying,
      waitingFor: WaitingFor.Guest,
      reason: StageReason.WaitingForGuest,
      message: filesystem
        ? `${grown}; the guest's filesystem ${probe.guestDevice ?? ''} (filesystemlist, guest-exec refused) has ${text(probe.guestBytes)} bytes, no more than the ${needed} the old size held: grow the partition and filesystem in the guest${probeFailure(probe)}.`
        : `${grown}; the guest sees ${probe.guestDevice ? `${probe.guestDevice} at ` : ''}${text(probe.guestBytes)} bytes, below the ${expected} expected${probeFailure(probe)}.`,
      progressPhase: Phase.GuestVerifying,
    };
  }
  return {
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    message: filesystem
      ? `The guest of ${guestOf} has grown its filesystem on disk ${disk} to ${probe.guestBytes} bytes, above the ${needed} the old size held (the hypervisor's disk has ${probe.hypervisorBytes}): the expansion of ${d.claim} to ${s.toText} is complete.`
      : `The guest of ${guestOf} sees disk ${disk}${probe.guestDevice && probe.guestDevice !== disk ? ` (${probe.guestDevice})` : ''} at ${probe.guestBytes} bytes (${expected} expected): the expansion of ${d.claim} to ${s.toText} is complete.`,
    progressPhase: undefined,
  };
}

/** The probe's sizes in the status: bytes, and what the guest's size measures. */
function recordProbe(d: Derivation, probe: ProbeReading): void {
  d.sizes.hypervisor =
    probe.hypervisorBytes === undefined ? undefined : String(probe.hypervisorBytes);
  d.sizes.guest = probe.guestBytes === undefined ? undefined : String(probe.guestBytes);
  if (probe.guestBytes !== undefined) d.sizes.guestEvidence = probe.guestEvidence ?? 'BlockDevice';
  if (probe.guestDevice !== undefined) d.sizes.guestDevice = probe.guestDevice;
}

/**
 * What a filesystem could hold before the expansion: the guest's size expected for the
 * VolumeExpansion's `from` (the PVC's capacity when the size was requested); a filesystem larger
 * than that shows the guest saw the growth. Without a readable `from`: the expected size.
 */
function filesystemFloor(d: Derivation, s: ClaimSizes, view: VmiView): bigint {
  const from = readSize({ storage: d.input.expansion.spec?.from });
  const info = view.status?.persistentVolumeClaimInfo;
  const volumeMode = info?.volumeMode ?? d.input.pvc.spec?.volumeMode;
  if (from.bytes === undefined || from.bytes >= s.to)
    return expectedGuestBytes({
      volumeMode,
      request: s.request.bytes ?? s.to,
      capacity: s.capacity.bytes!,
      filesystemOverhead: info?.filesystemOverhead,
    });
  return expectedGuestBytes({
    volumeMode,
    request: from.bytes,
    capacity: from.bytes,
    filesystemOverhead: info?.filesystemOverhead,
  });
}

const NO_RESIZE_STATE: ResizeState = {
  status: undefined,
  written: undefined,
  resizing: undefined,
  fileSystemResizePending: undefined,
  controllerResizeError: undefined,
  nodeResizeError: undefined,
};

function malformed(
  where: string,
  size: Size,
  writer: WaitingForValue,
  progressPhase: PhaseValue,
): Verdict {
  return {
    phase: Phase.Stuck,
    waitingFor: writer,
    reason: StageReason.MalformedQuantity,
    message: `${where} is ${JSON.stringify(size.text)}, not a quantity, so the tracker cannot tell how far the expansion got; it follows again once ${writer} (or whoever wrote it) writes a size such as 20Gi.`,
    progressPhase,
  };
}

function stopped(
  underlyingPhase: PhaseValue,
  vmName: string | undefined,
  claim: string,
  stage: 'node' | 'vm',
): Verdict {
  const what = vmName ? `The VM ${vmName}` : `No running VM uses ${claim}; the VM`;
  return {
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.VMStopped,
    message:
      `${what} is not running, so ${stage === 'node' ? 'no pod mounts the volume for kubelet to grow its filesystem' : 'KubeVirt cannot grow its disk online'}. ` +
      `The expansion completes at the next start (${stage === 'node' ? 'kubelet grows the filesystem when the pod mounts it, then ' : ''}KubeVirt grows the disk before the guest boots): start the VM.`,
    progressPhase: underlyingPhase,
  };
}

function infeasibleVerdict(
  resize: ResizeState,
  claim: string,
  to: string,
  capacity: string | undefined,
): Verdict | undefined {
  const lower = `Lower spec.resources.requests.storage (to no less than its status.capacity, ${capacity ?? 'unknown'}) to roll back, or ask for a size the storage supports`;
  if (resize.status === 'ControllerResizeInfeasible') {
    const why = resize.controllerResizeError?.message;
    return {
      phase: Phase.Infeasible,
      waitingFor: WaitingFor.User,
      reason: StageReason.ControllerResizeInfeasible,
      message: `The storage driver refused to grow ${claim} to ${to} (${resize.written})${why ? `: ${why}` : ''}. Kubernetes does not retry this size. ${lower}.`,
      progressPhase: undefined,
    };
  }
  if (resize.status === 'NodeResizeInfeasible') {
    const why = resize.nodeResizeError?.message;
    return {
      phase: Phase.Infeasible,
      waitingFor: WaitingFor.User,
      reason: StageReason.NodeResizeInfeasible,
      message: `kubelet could not grow the filesystem of ${claim} to ${to} on the node (${resize.written})${why ? `: ${why}` : ''}. Kubernetes does not retry this size. ${lower}.`,
      progressPhase: undefined,
    };
  }
  return undefined;
}

/**
 * external-resizer's and kubelet's part while status.capacity is below the size: ControllerResizing
 * until the PV grew and the resizer wrote its last PVC status, then NodeResizePending (or
 * NodeResizing while kubelet works on it).
 */
function kubernetesVerdict(
  resize: ResizeState,
  pvBytes: bigint | undefined,
  to: bigint,
  claim: string,
  toText: string,
  pvText: string | undefined,
): Verdict {
  const controller = (reason: StageReasonValue, message: string): Verdict => ({
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason,
    message,
    progressPhase: Phase.ControllerResizing,
  });
  const pvGrown = pvBytes !== undefined && pvBytes >= to;
  if (resize.status === 'ControllerResizeInProgress' || !pvGrown) {
    if (resize.controllerResizeError) {
      return controller(
        StageReason.ControllerResizeError,
        `external-resizer failed to grow the volume of ${claim} to ${toText} and retries: ${resize.controllerResizeError.message ?? 'no message'}.`,
      );
    }
    if (resize.status === 'ControllerResizeInProgress' || resize.resizing) {
      return controller(
        StageReason.ControllerResizeInProgress,
        `external-resizer is growing the volume of ${claim} to ${toText} (PV capacity ${pvText ?? 'unknown'}).`,
      );
    }
    return controller(
      StageReason.WaitingForResizer,
      `${claim} asks for ${toText}; the PV has ${pvText ?? 'no capacity'}, and external-resizer has not started growing it.`,
    );
  }
  const node = (phase: PhaseValue, reason: StageReasonValue, message: string): Verdict => ({
    phase,
    waitingFor: WaitingFor.Kubelet,
    reason,
    message,
    progressPhase: phase,
  });
  const nodeError = resize.nodeResizeError
    ? `kubelet failed to grow the filesystem of ${claim} and retries: ${resize.nodeResizeError.message ?? 'no message'}.`
    : undefined;
  if (resize.status === 'NodeResizeInProgress') {
    return node(
      Phase.NodeResizing,
      nodeError ? StageReason.NodeResizeError : StageReason.NodeResizeInProgress,
      nodeError ?? `kubelet is growing the filesystem of ${claim} to ${toText} on the node.`,
    );
  }
  if (resize.status === 'NodeResizePending' || resize.fileSystemResizePending || !resize.resizing) {
    return node(
      Phase.NodeResizePending,
      nodeError ? StageReason.NodeResizeError : StageReason.NodeResizePending,
      nodeError ??
        `The volume of ${claim} has grown to ${pvText}; kubelet grows its filesystem next, on the node of the pod that mounts it.`,
    );
  }
  // Resizing without FileSystemResizePending once the PV grew: the resizer's last PVC write is pending.
  return controller(
    StageReason.ControllerResizeInProgress,
    `external-resizer grew the volume of ${claim} to ${pvText} and has yet to record it in the PVC.`,
  );
}
