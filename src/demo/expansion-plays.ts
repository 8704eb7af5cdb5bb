/**
 * What the peers of an admitted resize do after the webhook, in order, and where each write must
 * leave the tracker's VolumeExpansion (docs/tracker.md "Phases"): external-resizer grows the
 * volume, kubelet the filesystem on the node, virt-controller copies the size into the VMI. No
 * guest probe runs in the demo, so a running VM's expansion ends its part at HypervisorResizing
 * (NoGuestProbe); a stopped VM's waits for its next start (Stuck, VMStopped). With `--vm` a real
 * domain is behind the VM: virt-handler grows its disk and the guest's size completes it, or,
 * the VM opted in to guest growth, the tracker grows the guest's filesystem first. Pure
 * data: the actors' calls are in ExpansionActors (src/demo/actors/expansion-actors.ts) and the VM
 * lab's virtHandlerExpands.
 */
import { parseQuantityCeil } from '../kube/index.js';
import { Phase, StageReason, type PhaseValue, type StageReasonValue } from '../vmwatcher/index.js';
import { virtHandlerExpands } from './lab/virt-handler-actor.js';
import { type ExpansionActors } from './actors/expansion-actors.js';
import { type LabVm } from './lab/lab-vm.js';

/** The expansion an actor works on. */
export interface PlayTarget {
  namespace: string;
  claim: string;
  pvName: string;
  vmName: string;
  /** The requested size, e.g. "20Gi". */
  size: string;
  /** `voe demo --vm`: the libvirt domain behind the VM and the disk's target in it. */
  lab?: { vm: LabVm; target: string };
}

export interface Play {
  /** Who acts: the component whose write this is. */
  actor:
    | 'voe webhook'
    | 'voe tracker'
    | 'external-resizer'
    | 'kubelet'
    | 'virt-controller'
    | 'virt-handler'
    | 'user';
  /** What it writes, for the timeline. */
  action: string;
  /** The write; none for the admission (the object exists already) or a newer request (made by a demo step). */
  act?: (actors: ExpansionActors, target: PlayTarget) => Promise<void>;
  /** The tracker's phase (and reason, when given) once the write is seen. */
  expect: { phase: PhaseValue; reason?: StageReasonValue };
  /**
   * The tracker may leave the phase before a read sees it (it grows the guest's filesystem and
   * writes Completed at once): the phase also counts as shown once status.phaseTimestamps has it.
   */
  passing?: true;
}

const ADMITTED: Play = {
  actor: 'voe webhook',
  action: 'admitted the resize; the tracker created the VolumeExpansion',
  expect: { phase: Phase.ControllerResizing, reason: StageReason.WaitingForResizer },
};

const CONTROLLER: readonly Play[] = [
  {
    actor: 'external-resizer',
    action: 'picks the PVC up: Resizing, ControllerResizeInProgress',
    act: (actors, t) => actors.resizerStarts(t.namespace, t.claim, t.size),
    expect: { phase: Phase.ControllerResizing, reason: StageReason.ControllerResizeInProgress },
  },
];

const GROWS_PV = 'grows the PV, then asks kubelet: FileSystemResizePending, NodeResizePending';

async function growPv(actors: ExpansionActors, t: PlayTarget): Promise<void> {
  // With a lab domain, the storage's own step first: its volume (the disk's device) grows.
  if (t.lab) await t.lab.vm.volume(t.lab.target).growDevice(parseQuantityCeil(t.size));
  await actors.resizerGrowsPv(t.pvName, t.size);
  await actors.resizerNeedsNode(t.namespace, t.claim);
}

const VIRT_CONTROLLER_COPIES = "copies the PVC's size into the VMI's volumeStatus";

/** A running VM: every peer in turn, up to the hypervisor. */
const ONLINE: readonly Play[] = [
  ADMITTED,
  ...CONTROLLER,
  {
    actor: 'external-resizer',
    action: GROWS_PV,
    act: growPv,
    expect: { phase: Phase.NodeResizePending, reason: StageReason.NodeResizePending },
  },
  {
    actor: 'kubelet',
    action: 'starts NodeExpandVolume: NodeResizeInProgress',
    act: (actors, t) => actors.kubeletStarts(t.namespace, t.claim),
    expect: { phase: Phase.NodeResizing, reason: StageReason.NodeResizeInProgress },
  },
  {
    actor: 'kubelet',
    action: 'finishes: status.capacity is the new size',
    act: async (actors, t) => {
      // A lab Filesystem-mode volume: NodeExpandVolume grows its filesystem first.
      if (t.lab) await t.lab.vm.volume(t.lab.target).growFilesystem();
      await actors.kubeletFinishes(t.namespace, t.claim);
    },
    expect: { phase: Phase.VMUpdating, reason: StageReason.WaitingForVmi },
  },
  {
    actor: 'virt-controller',
    action: VIRT_CONTROLLER_COPIES,
    act: (actors, t) => actors.virtControllerSyncs(t.namespace, t.vmName, t.claim),
    expect: { phase: Phase.HypervisorResizing, reason: StageReason.NoGuestProbe },
  },
];

/** A stopped VM: the volume grows; nothing mounts it until the VM starts. */
const OFFLINE: readonly Play[] = [
  ADMITTED,
  ...CONTROLLER,
  {
    actor: 'external-resizer',
    action: GROWS_PV,
    act: growPv,
    expect: { phase: Phase.Stuck, reason: StageReason.VMStopped },
  },
];

/**
 * A running VM backed by a real libvirt domain (`voe demo --vm`), with the local guest probe:
 * external-resizer's step grows the lab volume (the disk's device) too; after virt-controller,
 * the tracker measures the hypervisor below the size; the lab's virt-handler runs
 * `virsh blockresize` to the size KubeVirt computes; the guest's kernel sees the new capacity and
 * the tracker, asking it through the guest agent, records Completed.
 */
const ONLINE_WITH_GUEST: readonly Play[] = [
  ...ONLINE.slice(0, -1),
  {
    actor: 'virt-controller',
    action: VIRT_CONTROLLER_COPIES,
    act: (actors, t) => actors.virtControllerSyncs(t.namespace, t.vmName, t.claim),
    expect: { phase: Phase.HypervisorResizing, reason: StageReason.WaitingForHypervisor },
  },
  {
    actor: 'virt-handler',
    action: "virsh blockresize to the device's size (QMP block_resize)",
    act: async (actors, t) => {
      await virtHandlerExpands(actors.kubeConfig, t.lab!.vm, {
        namespace: t.namespace,
        vmiName: t.vmName,
        claimName: t.claim,
        target: t.lab!.target,
        size: t.size,
      });
    },
    expect: { phase: Phase.Completed, reason: StageReason.GuestSeesNewSize },
  },
];

/**
 * The same, the VM opted in to guest growth (storage.voe.dev/grow-guest-filesystem) and the
 * tracker running with the grower (`voe demo --vm`): once the guest sees the grown disk the
 * tracker writes GuestFilesystemGrowing, grows the guest's filesystem through the agent and
 * writes Completed (GuestFilesystemGrown) with its bytes before and after. No peer acts there.
 */
const ONLINE_WITH_GUEST_GROWTH: readonly Play[] = [
  ...ONLINE_WITH_GUEST.slice(0, -1),
  {
    ...ONLINE_WITH_GUEST.at(-1)!,
    expect: { phase: Phase.GuestFilesystemGrowing, reason: StageReason.GrowingGuestFilesystem },
    passing: true,
  },
  {
    actor: 'voe tracker',
    action: "grows the guest's filesystem through the guest agent (resize2fs, xfs_growfs, ...)",
    expect: { phase: Phase.Completed, reason: StageReason.GuestFilesystemGrown },
  },
];

/** The plays of an expansion: a newer request supersedes it; else the running or stopped VM's path. */
export function playsFor(options: {
  running: boolean;
  supersededBy?: string;
  /** A real domain and the local guest probe behind the VM (`voe demo --vm`). */
  guest?: boolean;
  /** With `guest`: the VM opted in and the tracker grows its guest's filesystem. */
  growth?: boolean;
}): readonly Play[] {
  if (options.supersededBy !== undefined)
    return [
      {
        actor: 'user',
        action: `asked for ${options.supersededBy} before external-resizer picked it up`,
        expect: { phase: Phase.Superseded, reason: StageReason.NewerRequest },
      },
    ];
  if (!options.running) return OFFLINE;
  if (!options.guest) return ONLINE;
  return options.growth ? ONLINE_WITH_GUEST_GROWTH : ONLINE_WITH_GUEST;
}
