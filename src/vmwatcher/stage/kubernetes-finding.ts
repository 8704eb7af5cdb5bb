import { isVmiRunning } from '../../model/index.js';
import { parseQuantityCeil } from '../../kube/index.js';
import { Phase, WaitingFor, type PhaseValue } from '../expansion-phase.js';
import { readResizeState } from '../read-resize-state.js';
import { StageReason } from '../stage-reason.js';
import type {
  ClaimEvent,
  LonghornVolume,
  Pod,
  PersistentVolumeClaim,
  VirtualMachineInstance,
  VirtualMachine,
} from '../../model/index.js';
import type { VolumeExpansion } from '../volume-expansion.js';
import { volumeHolders } from '../volume-pods.js';
import {
  NO_RESIZE_STATE,
  infeasibleVerdict,
  resizeProgressVerdict,
} from './kubernetes-resize-verdict.js';
import { malformedVerdict } from './malformed-verdict.js';
import { readSize, sizeProblems, type Size } from './read-size.js';
import type { ClaimRef, LayerFinding, Verdict } from './stage-verdict.js';
import { stoppedVerdict } from './stopped-verdict.js';
import { storageDriverVerdict } from './storage-driver-verdict.js';
import { isHotplugged, vmiVolume } from './vmi-volume.js';

/** What the Kubernetes layer reads: the VolumeExpansion, the PVC, its PV, and who runs the VM. */
export interface KubernetesInput {
  expansion: VolumeExpansion;
  pvc: PersistentVolumeClaim;
  pv: { spec?: { capacity?: Record<string, unknown>; csi?: { driver?: string } } } | undefined;
  vm: VirtualMachine | undefined;
  vmi: VirtualMachineInstance | undefined;
  pods: readonly Pod[];
  /** The PV's Longhorn volume (named by its spec.csi.volumeHandle), when Longhorn is served and has it. */
  longhornVolume?: LonghornVolume | undefined;
  /** Events about the PVC (external-resizer's). */
  claimEvents?: readonly ClaimEvent[];
}

/** The PVC's sizes and the size the VolumeExpansion follows, handed to the KubeVirt layer. */
export interface ClaimSizes {
  /** The size this VolumeExpansion follows (spec.to) and its text. */
  to: bigint;
  toText: string;
  request: Size;
  capacity: Size;
  allocated: Size;
  pv: Size;
}

/** The claim and its sizes once Kubernetes' part is done (status.capacity reached the size). */
export interface KubernetesHandover {
  claim: ClaimRef;
  claimSizes: ClaimSizes;
}

/** The claim of the derivation, named for messages. Pure. */
export function claimRef(pvc: PersistentVolumeClaim): ClaimRef {
  const namespace = pvc.metadata?.namespace ?? '';
  const name = pvc.metadata?.name ?? '';
  return { namespace, name, label: `${namespace}/${name}` };
}

/**
 * Kubernetes' layer: the VolumeExpansion's own spec, the user's request against the size it
 * follows (larger supersedes, smaller rolls back), then external-resizer and kubelet while the
 * PVC's status.capacity is below the size (docs/tracker.md "Upstream facts"). Hands the claim's
 * sizes on once the capacity reached the size. Pure.
 */
export function kubernetesFinding(input: KubernetesInput): LayerFinding<KubernetesHandover> {
  const claim = claimRef(input.pvc);
  const followed = followedSize(input.expansion, claim);
  if ('verdict' in followed) return { sizes: {}, pods: {}, problems: [followed.why], ...followed };
  const claimSizes = readClaimSizes(input, followed);
  const record = {
    sizes: {
      request: claimSizes.request.text,
      pvcCapacity: claimSizes.capacity.text,
      allocated: claimSizes.allocated.text,
      pv: claimSizes.pv.text,
    },
    problems: [
      ...sizeProblems('the PVC spec.resources.requests.storage', claimSizes.request),
      ...sizeProblems('the PVC status.capacity.storage', claimSizes.capacity),
      ...sizeProblems('the PV spec.capacity.storage', claimSizes.pv),
    ],
  };
  const verdict =
    requestVerdict(input, claim, claimSizes) ??
    malformedClaimVerdict(claimSizes) ??
    resizeVerdict(input, claim, claimSizes);
  if (verdict) return { ...record, pods: verdict.pods, verdict: verdict.verdict };
  return { ...record, pods: {}, handover: { claim, claimSizes } };
}

/** The size the object follows; a spec the tracker did not write (edited by hand) is Stuck. */
function followedSize(
  expansion: VolumeExpansion,
  claim: ClaimRef,
): { to: bigint; toText: string } | { verdict: Verdict; why: string } {
  const specTo = expansion.spec?.to;
  let to: bigint | undefined;
  try {
    to = typeof specTo === 'string' ? parseQuantityCeil(specTo.trim()) : undefined;
  } catch {
    to = undefined;
  }
  if (to !== undefined && to > 0n && expansion.spec?.pvcName === claim.name)
    return { to, toText: specTo! };
  const why =
    expansion.spec?.pvcName !== claim.name
      ? `spec.pvcName is ${JSON.stringify(expansion.spec?.pvcName)}, not the PVC it belongs to (${claim.name})`
      : `spec.to is ${JSON.stringify(specTo)}, not a positive quantity`;
  return {
    why,
    verdict: {
      phase: Phase.Stuck,
      waitingFor: WaitingFor.User,
      reason: StageReason.InvalidVolumeExpansion,
      message:
        `This VolumeExpansion was changed by hand: ${why}. The tracker writes these objects itself and no longer follows this one; ` +
        `delete it, and the tracker creates a new one for the PVC's current request.`,
      progressPhase: undefined,
    },
  };
}

/** The PVC's request, capacity and allocatedResources and the PV's capacity. */
function readClaimSizes(
  input: KubernetesInput,
  followed: { to: bigint; toText: string },
): ClaimSizes {
  return {
    ...followed,
    request: readSize(input.pvc.spec?.resources?.requests),
    capacity: readSize(input.pvc.status?.capacity),
    allocated: readSize(input.pvc.status?.allocatedResources),
    pv: readSize(input.pv?.spec?.capacity),
  };
}

/** A verdict with the pods found on the way to it. */
interface HeldBy {
  verdict: Verdict;
  pods: { launcher?: string; hotplug?: string };
}

/** The user's request against the size followed: larger supersedes, smaller rolls back. */
function requestVerdict(
  input: KubernetesInput,
  claim: ClaimRef,
  sizes: ClaimSizes,
): HeldBy | undefined {
  const { request, capacity, to, toText } = sizes;
  if (request.bytes !== undefined && request.bytes > to) {
    return held({
      phase: Phase.Superseded,
      waitingFor: undefined,
      reason: StageReason.NewerRequest,
      message: `The request of ${claim.label} was raised to ${request.text}: another VolumeExpansion follows that size; this one (${toText}) ends here.`,
      progressPhase: undefined,
    });
  }
  if (request.bytes === undefined || request.bytes >= to) return undefined;
  const resize = readResizeState(input.pvc);
  const afterFailure =
    input.expansion.status?.phase === Phase.Infeasible ||
    resize.status === 'ControllerResizeInfeasible' ||
    resize.status === 'NodeResizeInfeasible';
  return held({
    phase: Phase.RolledBack,
    waitingFor: undefined,
    reason: StageReason.RequestLowered,
    message:
      `The request of ${claim.label} was lowered to ${request.text}${afterFailure ? ' after the expansion failed' : ''}: ` +
      `the expansion to ${toText} will not happen${request.bytes > (capacity.bytes ?? 0n) ? `; Kubernetes now works towards ${request.text}` : ''}.`,
    progressPhase: undefined,
  });
}

function held(verdict: Verdict, pods: HeldBy['pods'] = {}): HeldBy {
  return { verdict, pods };
}

/** A PVC capacity or PV capacity that is not a quantity: nothing can be said past it. */
function malformedClaimVerdict(sizes: ClaimSizes): HeldBy | undefined {
  if (!sizes.capacity.malformed && !sizes.pv.malformed) return undefined;
  return held(
    malformedVerdict(
      sizes.capacity.malformed ? 'the PVC status.capacity.storage' : 'the PV spec.capacity.storage',
      sizes.capacity.malformed ? sizes.capacity : sizes.pv,
      sizes.capacity.malformed ? WaitingFor.Kubelet : WaitingFor.ExternalResizer,
      Phase.ControllerResizing,
    ),
  );
}

/**
 * external-resizer and kubelet while status.capacity is below the size (kubelet grows the
 * filesystem only of a volume a pod mounts). A resize state about another size (the
 * allocatedResources of a request since lowered) says nothing about this one yet. Undefined once
 * the PVC's capacity reached the size.
 */
function resizeVerdict(
  input: KubernetesInput,
  claim: ClaimRef,
  sizes: ClaimSizes,
): HeldBy | undefined {
  const resize = readResizeState(input.pvc);
  const current =
    sizes.allocated.bytes === undefined || sizes.allocated.bytes === sizes.to
      ? resize
      : NO_RESIZE_STATE;
  const infeasible = infeasibleVerdict(current, claim.label, sizes.toText, sizes.capacity.text);
  if (infeasible) return held(infeasible);
  if (sizes.capacity.bytes !== undefined && sizes.capacity.bytes >= sizes.to) return undefined;
  const progress = resizeProgressVerdict(
    current,
    sizes.pv.bytes,
    sizes.to,
    claim.label,
    sizes.toText,
    sizes.pv.text,
  );
  if (progress.phase === Phase.ControllerResizing) {
    const created = Date.parse(input.expansion.metadata?.creationTimestamp ?? '');
    return held(
      storageDriverVerdict(
        {
          claim: claim.label,
          toText: sizes.toText,
          driver: input.pv?.spec?.csi?.driver,
          longhornVolume: input.longhornVolume,
          events: input.claimEvents ?? [],
          since: Number.isNaN(created) ? undefined : created,
        },
        progress,
      ),
    );
  }
  const vmName = input.vm?.metadata?.name ?? input.vmi?.metadata?.name;
  if (input.vmi === undefined || !isVmiRunning(input.vmi))
    return held(stoppedVerdict(progress.phase, vmName, claim.label, 'node'));
  return hotplugUnmountedVerdict(input, input.vmi, claim, progress);
}

/** Node expansion of a hotplugged Filesystem volume that no current hotplug pod mounts: Stuck. */
function hotplugUnmountedVerdict(
  input: KubernetesInput,
  vmi: VirtualMachineInstance,
  claim: ClaimRef,
  progress: Verdict,
): HeldBy {
  const { spec, status } = vmiVolume(vmi, claim.name);
  const holders = volumeHolders(vmi, input.pods, claim.name);
  const pods = {
    launcher: holders.launcher?.metadata?.name,
    hotplug: holders.hotplug?.metadata?.name,
  };
  const filesystem = (input.pvc.spec?.volumeMode ?? 'Filesystem') === 'Filesystem';
  if (!filesystem || !isHotplugged(spec, status) || holders.hotplugHolds)
    return held(progress, pods);
  const nodePhase: PhaseValue = progress.phase;
  const vmName = input.vm?.metadata?.name ?? vmi.metadata?.name;
  return held(
    {
      phase: Phase.Stuck,
      waitingFor: WaitingFor.User,
      reason: StageReason.HotplugVolumeNotMounted,
      message:
        `${claim.label} is a hotplugged Filesystem volume of ${vmName ?? 'the VM'} that no current hotplug pod mounts` +
        `${holders.hotplug ? ` (${holders.hotplug.metadata?.name} lists it without mounting it)` : ''}, ` +
        `so kubelet never grows its filesystem and the disk never grows. Restart the VM, or unplug the volume and plug it again (virtctl removevolume / addvolume).`,
      progressPhase: nodePhase,
    },
    pods,
  );
}
