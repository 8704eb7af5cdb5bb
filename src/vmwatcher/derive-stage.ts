import { parseQuantityCeil } from '../kube/index.js';
import { expandDisksState, isVmiRunning } from '../admission/index.js';
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
  if (previous.phase !== undefined && FINAL_PHASES.has(previous.phase)) {
    return {
      phase: previous.phase,
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
  const previousSince =
    previous.progress?.phase === verdict.progressPhase
      ? parseTime(previous.progress.since)
      : undefined;
  const since = previousSince ?? input.now;
  stage.progress = { phase: verdict.progressPhase, since };
  const watched =
    verdict.phase === verdict.progressPhase &&
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

function underlying(
  input: StageInput,
  sizes: ObservedSizes,
  pods: VolumePods,
  problems: string[],
): Verdict {
  const { pvc, expansion } = input;
  const namespace = pvc.metadata?.namespace ?? '';
  const claimName = pvc.metadata?.name ?? '';
  const claim = `${namespace}/${claimName}`;
  const note = (where: string, size: Size): void => {
    if (size.malformed) problems.push(`${where} is ${JSON.stringify(size.text)}, not a quantity`);
  };

  // The object itself: written by the tracker; anything else was edited by hand.
  const specTo = expansion.spec?.to;
  let to: bigint | undefined;
  try {
    to = typeof specTo === 'string' ? parseQuantityCeil(specTo.trim()) : undefined;
  } catch {
    to = undefined;
  }
  if (to === undefined || to <= 0n || expansion.spec?.pvcName !== claimName) {
    const why =
      expansion.spec?.pvcName !== claimName
        ? `spec.pvcName is ${JSON.stringify(expansion.spec?.pvcName)}, not the PVC it belongs to (${claimName})`
        : `spec.to is ${JSON.stringify(specTo)}, not a positive quantity`;
    problems.push(why);
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
  const toText = specTo!;

  // The user's request: larger supersedes, smaller rolls back.
  const request = readSize(pvc.spec?.resources?.requests);
  sizes.request = request.text;
  const capacity = readSize(pvc.status?.capacity);
  sizes.pvcCapacity = capacity.text;
  const allocated = readSize(pvc.status?.allocatedResources);
  sizes.allocated = allocated.text;
  const pv = readSize(input.pv?.spec?.capacity);
  sizes.pv = pv.text;
  note('the PVC spec.resources.requests.storage', request);
  note('the PVC status.capacity.storage', capacity);
  note('the PV spec.capacity.storage', pv);
  const resize = readResizeState(pvc);
  if (request.bytes !== undefined && request.bytes > to) {
    return {
      phase: Phase.Superseded,
      waitingFor: undefined,
      reason: StageReason.NewerRequest,
      message: `The request of ${claim} was raised to ${request.text}: another VolumeExpansion follows that size; this one (${toText}) ends here.`,
      progressPhase: undefined,
    };
  }
  if (request.bytes !== undefined && request.bytes < to) {
    const afterFailure =
      input.expansion.status?.phase === Phase.Infeasible ||
      resize.status === 'ControllerResizeInfeasible' ||
      resize.status === 'NodeResizeInfeasible';
    return {
      phase: Phase.RolledBack,
      waitingFor: undefined,
      reason: StageReason.RequestLowered,
      message:
        `The request of ${claim} was lowered to ${request.text}${afterFailure ? ' after the expansion failed' : ''}: ` +
        `the expansion to ${toText} will not happen${request.bytes > (capacity.bytes ?? 0n) ? `; Kubernetes now works towards ${request.text}` : ''}.`,
      progressPhase: undefined,
    };
  }
  if (capacity.malformed || pv.malformed) {
    return malformed(
      capacity.malformed ? 'the PVC status.capacity.storage' : 'the PV spec.capacity.storage',
      capacity.malformed ? capacity : pv,
      capacity.malformed ? WaitingFor.Kubelet : WaitingFor.ExternalResizer,
      Phase.ControllerResizing,
    );
  }

  // Kubernetes' part: external-resizer, then kubelet. A resize state about another size (the
  // allocatedResources of a request since lowered) says nothing about this one yet.
  const current =
    allocated.bytes === undefined || allocated.bytes === to ? resize : NO_RESIZE_STATE;
  const infeasible = infeasibleVerdict(current, claim, toText, capacity.text);
  if (infeasible) return infeasible;
  const vmiRunning = input.vmi !== undefined && isVmiRunning(input.vmi);
  const vmName = input.vm?.metadata?.name ?? input.vmi?.metadata?.name;
  if (capacity.bytes === undefined || capacity.bytes < to) {
    const kubernetes = kubernetesVerdict(current, pv.bytes, to, claim, toText, pv.text);
    if (kubernetes.phase === Phase.ControllerResizing) return kubernetes;
    // Node expansion: kubelet grows the filesystem of a volume a pod mounts.
    if (!vmiRunning) return stopped(kubernetes.phase, vmName, claim, 'node');
    const { spec, status } = vmiVolume(input.vmi!, claimName);
    const holders = volumeHolders(input.vmi!, input.pods, claimName);
    pods.launcher = holders.launcher?.metadata?.name;
    pods.hotplug = holders.hotplug?.metadata?.name;
    const filesystem = (pvc.spec?.volumeMode ?? 'Filesystem') === 'Filesystem';
    if (filesystem && isHotplugged(spec, status) && !holders.hotplugHolds) {
      return {
        phase: Phase.Stuck,
        waitingFor: WaitingFor.User,
        reason: StageReason.HotplugVolumeNotMounted,
        message:
          `${claim} is a hotplugged Filesystem volume of ${vmName ?? 'the VM'} that no current hotplug pod mounts` +
          `${holders.hotplug ? ` (${holders.hotplug.metadata?.name} lists it without mounting it)` : ''}, ` +
          `so kubelet never grows its filesystem and the disk never grows. Restart the VM, or unplug the volume and plug it again (virtctl removevolume / addvolume).`,
        progressPhase: kubernetes.phase,
      };
    }
    return kubernetes;
  }

  // KubeVirt's part: virt-controller copies the size into the VMI, virt-handler/virt-launcher grow the disk.
  if (!vmiRunning) return stopped(Phase.VMUpdating, vmName, claim, 'vm');
  const vmi = input.vmi!;
  const vmiName = `${vmi.metadata?.namespace ?? namespace}/${vmi.metadata?.name ?? ''}`;
  const { spec, status } = vmiVolume(vmi, claimName);
  const holders = volumeHolders(vmi, input.pods, claimName);
  pods.launcher = holders.launcher?.metadata?.name;
  pods.hotplug = holders.hotplug?.metadata?.name;
  const info = status?.persistentVolumeClaimInfo;
  const vmiCapacity = readSize(info?.capacity);
  const vmiRequests = readSize(info?.requests);
  sizes.vmiCapacity = vmiCapacity.text;
  sizes.vmiRequests = vmiRequests.text;
  note(`the VMI ${vmiName} persistentVolumeClaimInfo.capacity.storage`, vmiCapacity);
  note(`the VMI ${vmiName} persistentVolumeClaimInfo.requests.storage`, vmiRequests);
  if (vmiCapacity.malformed || vmiRequests.malformed) {
    return malformed(
      `the VMI ${vmiName} persistentVolumeClaimInfo.${vmiCapacity.malformed ? 'capacity' : 'requests'}.storage`,
      vmiCapacity.malformed ? vmiCapacity : vmiRequests,
      WaitingFor.VirtController,
      Phase.VMUpdating,
    );
  }
  // Before KubeVirt v0.50 only capacity is copied.
  const vmiTarget =
    vmiRequests.bytes !== undefined && vmiCapacity.bytes !== undefined
      ? vmiRequests.bytes < vmiCapacity.bytes
        ? vmiRequests.bytes
        : vmiCapacity.bytes
      : vmiCapacity.bytes;
  if (vmiTarget === undefined || vmiTarget < to) {
    return {
      phase: Phase.VMUpdating,
      waitingFor: WaitingFor.VirtController,
      reason: StageReason.WaitingForVmi,
      message: status
        ? `${claim} has grown to ${capacity.text}; virt-controller has not copied it into the VMI ${vmiName} yet (persistentVolumeClaimInfo capacity ${vmiCapacity.text ?? 'unset'}, requests ${vmiRequests.text ?? 'unset'}).`
        : `${claim} has grown to ${capacity.text}; the VMI ${vmiName} has no volumeStatus entry for it yet (virt-controller writes it).`,
      progressPhase: Phase.VMUpdating,
    };
  }
  const gate = input.kubeVirt
    ? expandDisksState(input.kubeVirt)
    : { enabled: false, why: 'no KubeVirt CR was found' };
  if (!gate.enabled) {
    const disabled = gate.why.includes('disabledFeatureGates');
    return {
      phase: Phase.Stuck,
      waitingFor: WaitingFor.User,
      reason: StageReason.ExpandDisksOff,
      message:
        `The VMI ${vmiName} has the new size ${vmiCapacity.text}, but ExpandDisks is not on (${gate.why}), so KubeVirt does not grow the disk of the running VM. ` +
        (disabled
          ? 'Remove ExpandDisks from the KubeVirt CR\'s disabledFeatureGates and run "voe enable"'
          : 'Run "voe enable" (adds ExpandDisks to the KubeVirt CR\'s featureGates)') +
        ', or restart the VM: the disk then grows at its next start.',
      progressPhase: Phase.HypervisorResizing,
    };
  }
  const expected = expectedGuestBytes({
    volumeMode: info?.volumeMode ?? pvc.spec?.volumeMode,
    request: request.bytes ?? to,
    capacity: capacity.bytes,
    filesystemOverhead: info?.filesystemOverhead,
  });
  sizes.expected = String(expected);
  const disk = `${status?.target ?? spec?.name ?? claimName}`;
  if (input.probe === null) {
    return {
      phase: Phase.HypervisorResizing,
      waitingFor: WaitingFor.VirtHandler,
      reason: StageReason.NoGuestProbe,
      message:
        `The VMI ${vmiName} has the new size ${vmiCapacity.text}: virt-handler and virt-launcher grow disk ${disk} in the hypervisor next, and the guest should then see ${expected} bytes. ` +
        "No guest probe is configured, so voe cannot see the hypervisor's or the guest's size (KubeVirt records neither): check in the guest (lsblk), and grow its partition and filesystem there.",
      progressPhase: Phase.HypervisorResizing,
    };
  }
  sizes.hypervisor =
    input.probe.hypervisorBytes === undefined ? undefined : String(input.probe.hypervisorBytes);
  sizes.guest = input.probe.guestBytes === undefined ? undefined : String(input.probe.guestBytes);
  if (input.probe.hypervisorBytes === undefined || input.probe.hypervisorBytes < expected) {
    return {
      phase: Phase.HypervisorResizing,
      waitingFor: WaitingFor.VirtHandler,
      reason: StageReason.WaitingForHypervisor,
      message: `The VMI ${vmiName} has the new size ${vmiCapacity.text}; the hypervisor's disk ${disk} has ${text(input.probe.hypervisorBytes)} bytes, below the ${expected} expected (virt-handler and virt-launcher grow it).`,
      progressPhase: Phase.HypervisorResizing,
    };
  }
  if (input.probe.guestBytes === undefined || input.probe.guestBytes < expected) {
    return {
      phase: Phase.GuestVerifying,
      waitingFor: WaitingFor.Guest,
      reason: StageReason.WaitingForGuest,
      message: `The hypervisor's disk ${disk} has grown to ${input.probe.hypervisorBytes} bytes; the guest sees ${text(input.probe.guestBytes)}, below the ${expected} expected.`,
      progressPhase: Phase.GuestVerifying,
    };
  }
  return {
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    message: `The guest of ${vmName ?? vmiName} sees disk ${disk} at ${input.probe.guestBytes} bytes (${expected} expected): the expansion of ${claim} to ${toText} is complete.`,
    progressPhase: undefined,
  };
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
