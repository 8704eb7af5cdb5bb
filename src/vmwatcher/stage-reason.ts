/**
 * The stable codes of `status.reason` (docs/tracker.md "Reasons"): why the expansion is in its
 * phase. Messages say the rest; these never change once published.
 */
export const StageReason = {
  /** ControllerResizing: the request is above the PV's capacity; external-resizer has not grown the volume yet. */
  WaitingForResizer: 'WaitingForResizer',
  /** ControllerResizing: external-resizer works on it (ControllerResizeInProgress, or condition Resizing). */
  ControllerResizeInProgress: 'ControllerResizeInProgress',
  /** ControllerResizing: the driver failed with an error external-resizer retries (condition ControllerResizeError only). */
  ControllerResizeError: 'ControllerResizeError',
  /** ControllerResizing: Longhorn's volume says expansionRequired, or the resizer retries its DeadlineExceeded: still expanding (never NoProgress). */
  LonghornExpanding: 'LonghornExpanding',
  /** NodeResizePending: the PV grew; kubelet must grow the filesystem on the node. */
  NodeResizePending: 'NodeResizePending',
  /** NodeResizing: kubelet works on it (NodeResizeInProgress). */
  NodeResizeInProgress: 'NodeResizeInProgress',
  /** NodeResizing or NodeResizePending: kubelet's NodeExpandVolume failed and is retried (condition NodeResizeError). */
  NodeResizeError: 'NodeResizeError',
  /** VMUpdating: the PVC grew; virt-controller has not copied its size into the VMI yet. */
  WaitingForVmi: 'WaitingForVmi',
  /** HypervisorResizing: the VMI has the new size; the hypervisor's disk is smaller (guest probe). */
  WaitingForHypervisor: 'WaitingForHypervisor',
  /** HypervisorResizing: the VMI has the new size, and no guest probe is configured to see further. */
  NoGuestProbe: 'NoGuestProbe',
  /** GuestVerifying: the hypervisor's disk grew; the guest does not show the size yet. */
  WaitingForGuest: 'WaitingForGuest',
  /** Completed: the guest sees at least the size the hypervisor shows. */
  GuestSeesNewSize: 'GuestSeesNewSize',
  /** GuestFilesystemGrowing: the guest sees the grown disk; the VM opted in, and its filesystem is being grown through the guest agent. */
  GrowingGuestFilesystem: 'GrowingGuestFilesystem',
  /** Completed: the guest sees the grown disk and its filesystem fills it (grown by voe, or already). */
  GuestFilesystemGrown: 'GuestFilesystemGrown',
  /** Completed at block level: the guest sees the grown disk, but the growth of its filesystem was refused or failed (the message gives the reason, the remedy and the commands). */
  GuestFilesystemNotGrown: 'GuestFilesystemNotGrown',
  /** Infeasible: ControllerResizeInfeasible (ControllerResizeFailed up to Kubernetes 1.30). */
  ControllerResizeInfeasible: 'ControllerResizeInfeasible',
  /** Infeasible: NodeResizeInfeasible (NodeResizeFailed up to Kubernetes 1.30). */
  NodeResizeInfeasible: 'NodeResizeInfeasible',
  /** RolledBack: the user lowered the request below this expansion's size. */
  RequestLowered: 'RequestLowered',
  /** Superseded: a larger size was requested; another VolumeExpansion follows it. */
  NewerRequest: 'NewerRequest',
  /** Stuck: a hotplugged Filesystem volume no current hotplug pod mounts, so kubelet never grows it. */
  HotplugVolumeNotMounted: 'HotplugVolumeNotMounted',
  /** Stuck: the VMI has the new size but ExpandDisks is not effectively on. */
  ExpandDisksOff: 'ExpandDisksOff',
  /** Stuck: the hypervisor's disk grew, and no guest agent is connected to show the guest's size. */
  GuestUnverifiable: 'GuestUnverifiable',
  /** Stuck: Longhorn's volume records a lastExpansionError. */
  LonghornExpansionFailed: 'LonghornExpansionFailed',
  /** Stuck: external-resizer says the CSI driver only supports offline expansion and the volume is in use. */
  OfflineExpansionOnly: 'OfflineExpansionOnly',
  /** Stuck: no VMI runs the VM; the expansion completes at its next start. */
  VMStopped: 'VMStopped',
  /** Stuck: the phase has not moved for --stuck-after. */
  NoProgress: 'NoProgress',
  /** Stuck: a size the tracker reads (from the PVC, PV or VMI) is not a quantity. */
  MalformedQuantity: 'MalformedQuantity',
  /** Stuck: the VolumeExpansion's spec is not what the tracker wrote (edited by hand). */
  InvalidVolumeExpansion: 'InvalidVolumeExpansion',
} as const;

export type StageReasonValue = (typeof StageReason)[keyof typeof StageReason];

/** Stuck reasons, for the voe_expansions_stuck gauge (one series each, 0 included). */
export const STUCK_REASONS: readonly StageReasonValue[] = [
  StageReason.HotplugVolumeNotMounted,
  StageReason.ExpandDisksOff,
  StageReason.GuestUnverifiable,
  StageReason.LonghornExpansionFailed,
  StageReason.OfflineExpansionOnly,
  StageReason.VMStopped,
  StageReason.NoProgress,
  StageReason.MalformedQuantity,
  StageReason.InvalidVolumeExpansion,
];
