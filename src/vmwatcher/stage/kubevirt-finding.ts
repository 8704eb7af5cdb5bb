import { expandDisksState, isVmiRunning } from '../../model/index.js';
import { expandDisksOffRemedy } from '../expand-disks-off-remedy.js';
import { Phase, WaitingFor } from '../expansion-phase.js';
import { expectedGuestBytes } from '../expected-guest-bytes.js';
import { StageReason } from '../stage-reason.js';
import type {
  KubeVirt,
  Pod,
  PersistentVolumeClaim,
  VirtualMachineInstance,
  VmiVolumeStatus,
  VirtualMachine,
  VmVolume,
} from '../../model/index.js';
import { volumeHolders } from '../volume-pods.js';
import type { ClaimSizes, KubernetesHandover } from './kubernetes-finding.js';
import { malformedVerdict } from './malformed-verdict.js';
import { readSize, sizeProblems, type Size } from './read-size.js';
import type { ClaimRef, LayerFinding, Verdict } from './stage-verdict.js';
import { stoppedVerdict } from './stopped-verdict.js';
import { vmiVolume } from './vmi-volume.js';

/** What the KubeVirt layer reads: the VM, its running instance and pods, the KubeVirt CR. */
export interface KubeVirtInput {
  pvc: PersistentVolumeClaim;
  vm: VirtualMachine | undefined;
  vmi: VirtualMachineInstance | undefined;
  pods: readonly Pod[];
  kubeVirt: KubeVirt | undefined;
}

/** The running VMI's view of the volume (KubeVirt's part). */
export interface VmiView {
  vmi: VirtualMachineInstance;
  /** namespace/name of the VMI, for messages. */
  vmiName: string;
  vmName: string | undefined;
  spec: VmVolume | undefined;
  status: VmiVolumeStatus | undefined;
  /** Block or Filesystem, as the VMI (else the PVC) has it. */
  volumeMode: string | undefined;
  capacity: Size;
  requests: Size;
}

/** What the hypervisor layer needs: the claim, its sizes, the VMI's view, and the largest size KubeVirt gives the disk. */
export interface KubeVirtHandover {
  claim: ClaimRef;
  claimSizes: ClaimSizes;
  view: VmiView;
  /** KubeVirt's target for the disk: the device for Block, the most disk.img may reach for Filesystem. */
  expected: bigint;
}

/**
 * KubeVirt's layer once the PVC grew (docs/tracker.md "Upstream facts"): the VM runs, virt-controller copied
 * the PVC's size into the VMI (both capacity and requests; capacity only before v0.50), and
 * ExpandDisks is on (expandDisksState) so that virt-handler and virt-launcher grow the disk.
 * Hands on the size KubeVirt aims the disk at. Pure.
 */
export function kubeVirtFinding(
  input: KubeVirtInput,
  { claim, claimSizes }: KubernetesHandover,
): LayerFinding<KubeVirtHandover> {
  const vmName = input.vm?.metadata?.name ?? input.vmi?.metadata?.name;
  if (input.vmi === undefined || !isVmiRunning(input.vmi))
    return {
      sizes: {},
      pods: {},
      problems: [],
      verdict: stoppedVerdict(Phase.VMUpdating, vmName, claim.label, 'vm'),
    };
  const vmi = input.vmi;
  const view = readVmiView(input, vmi, claim, vmName);
  const holders = volumeHolders(vmi, input.pods, claim.name);
  const record = {
    sizes: { vmiCapacity: view.capacity.text, vmiRequests: view.requests.text },
    pods: { launcher: holders.launcher?.metadata?.name, hotplug: holders.hotplug?.metadata?.name },
    problems: [
      ...sizeProblems(
        `the VMI ${view.vmiName} persistentVolumeClaimInfo.capacity.storage`,
        view.capacity,
      ),
      ...sizeProblems(
        `the VMI ${view.vmiName} persistentVolumeClaimInfo.requests.storage`,
        view.requests,
      ),
    ],
  };
  const verdict =
    malformedVmiVerdict(view) ??
    vmiUpdatingVerdict(claim, claimSizes, view) ??
    expandDisksOffVerdict(input.kubeVirt, view);
  if (verdict) return { ...record, verdict };
  const expected = expectedGuestBytes({
    volumeMode: view.volumeMode,
    request: claimSizes.request.bytes ?? claimSizes.to,
    capacity: claimSizes.capacity.bytes!,
    filesystemOverhead: view.status?.persistentVolumeClaimInfo?.filesystemOverhead,
  });
  return {
    ...record,
    sizes: { ...record.sizes, expected: String(expected) },
    handover: { claim, claimSizes, view, expected },
  };
}

/** The VMI's volume and its copy of the PVC's sizes. */
function readVmiView(
  input: KubeVirtInput,
  vmi: VirtualMachineInstance,
  claim: ClaimRef,
  vmName: string | undefined,
): VmiView {
  const vmiName = `${vmi.metadata?.namespace ?? claim.namespace}/${vmi.metadata?.name ?? ''}`;
  const { spec, status } = vmiVolume(vmi, claim.name);
  const info = status?.persistentVolumeClaimInfo;
  return {
    vmi,
    vmiName,
    vmName,
    spec,
    status,
    volumeMode: info?.volumeMode ?? input.pvc.spec?.volumeMode,
    capacity: readSize(info?.capacity),
    requests: readSize(info?.requests),
  };
}

/** A VMI size that is not a quantity: Stuck until virt-controller writes one. */
function malformedVmiVerdict(view: VmiView): Verdict | undefined {
  if (!view.capacity.malformed && !view.requests.malformed) return undefined;
  return malformedVerdict(
    `the VMI ${view.vmiName} persistentVolumeClaimInfo.${view.capacity.malformed ? 'capacity' : 'requests'}.storage`,
    view.capacity.malformed ? view.capacity : view.requests,
    WaitingFor.VirtController,
    Phase.VMUpdating,
  );
}

/** VMUpdating while the VMI's copy (both capacity and requests; capacity only before KubeVirt v0.50) is below the size. */
function vmiUpdatingVerdict(
  claim: ClaimRef,
  claimSizes: ClaimSizes,
  view: VmiView,
): Verdict | undefined {
  const { capacity, requests, status, vmiName } = view;
  const vmiTarget =
    requests.bytes !== undefined && capacity.bytes !== undefined
      ? requests.bytes < capacity.bytes
        ? requests.bytes
        : capacity.bytes
      : capacity.bytes;
  if (vmiTarget !== undefined && vmiTarget >= claimSizes.to) return undefined;
  return {
    phase: Phase.VMUpdating,
    waitingFor: WaitingFor.VirtController,
    reason: StageReason.WaitingForVmi,
    message: status
      ? `${claim.label} has grown to ${claimSizes.capacity.text}; virt-controller has not copied it into the VMI ${vmiName} yet (persistentVolumeClaimInfo capacity ${capacity.text ?? 'unset'}, requests ${requests.text ?? 'unset'}).`
      : `${claim.label} has grown to ${claimSizes.capacity.text}; the VMI ${vmiName} has no volumeStatus entry for it yet (virt-controller writes it).`,
    progressPhase: Phase.VMUpdating,
  };
}

/** The VMI has the size but ExpandDisks is not effectively on: KubeVirt does not grow the running disk. */
function expandDisksOffVerdict(kubeVirt: KubeVirt | undefined, view: VmiView): Verdict | undefined {
  const gate = kubeVirt
    ? expandDisksState(kubeVirt)
    : { enabled: false, why: 'no KubeVirt CR was found' };
  if (gate.enabled) return undefined;
  const remedy = expandDisksOffRemedy({
    volumeMode: view.volumeMode,
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
