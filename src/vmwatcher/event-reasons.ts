import { GUEST_GROW_EVENT_ACTION, GuestGrowEventReason } from '../guest-grow/guest-grow-events.js';
import { Phase, type PhaseValue } from './expansion-phase.js';

/**
 * The reasons of every Event the tracker and `voe enable` / `voe disable` write
 * (events.k8s.io/v1, through src/kube's EventRecorder), in one place: stable, CamelCase.
 */
export const EventReason = {
  ExpansionControllerResizing: 'ExpansionControllerResizing',
  ExpansionNodeResizePending: 'ExpansionNodeResizePending',
  ExpansionNodeResizing: 'ExpansionNodeResizing',
  ExpansionVMUpdating: 'ExpansionVMUpdating',
  ExpansionHypervisorResizing: 'ExpansionHypervisorResizing',
  ExpansionGuestVerifying: 'ExpansionGuestVerifying',
  ExpansionGuestFilesystemGrowing: 'ExpansionGuestFilesystemGrowing',
  ExpansionCompleted: 'ExpansionCompleted',
  ExpansionInfeasible: 'ExpansionInfeasible',
  ExpansionStuck: 'ExpansionStuck',
  ExpansionRolledBack: 'ExpansionRolledBack',
  ExpansionSuperseded: 'ExpansionSuperseded',
  /** On the VM, as `voe guest grow` records it too: the tracker grew the guest's filesystem (the commands run, the sizes before and after). */
  GuestFilesystemGrown: GuestGrowEventReason.Grown,
  /** On the VM (Warning): the growth of the guest's filesystem was refused or failed (reason, remedy, the commands). */
  GuestFilesystemNotGrown: GuestGrowEventReason.NotGrown,
  /** On a VM whose harvesterhci.io/volumeClaimTemplates annotation cannot be read. */
  InvalidVolumeClaimTemplates: 'InvalidVolumeClaimTemplates',
  /** `voe enable` added ExpandDisks to the KubeVirt CR's featureGates. */
  ExpandDisksEnabled: 'ExpandDisksEnabled',
  /** `voe enable` found ExpandDisks in disabledFeatureGates and changed nothing. */
  ExpandDisksDisabledByUser: 'ExpandDisksDisabledByUser',
  /** `voe disable` removed the ExpandDisks gate `voe enable` had added. */
  ExpandDisksRemoved: 'ExpandDisksRemoved',
  /** `voe enable` created the csi-online-expand-validation Setting with its default. */
  ExpandSettingCreated: 'ExpandSettingCreated',
  /** `voe disable` deleted the Setting `voe enable` had created. */
  ExpandSettingDeleted: 'ExpandSettingDeleted',
  /** `voe disable` left the Setting `voe enable` had created, because it was changed since. */
  ExpandSettingKept: 'ExpandSettingKept',
} as const;

export type EventReasonValue = (typeof EventReason)[keyof typeof EventReason];

/** The Event action of the tracker's phase Events, and of `voe enable` / `voe disable`. */
export const EventAction = {
  TrackExpansion: 'TrackExpansion',
  ReadVolumeClaimTemplates: 'ReadVolumeClaimTemplates',
  /** The same action as `voe guest grow`'s Events. */
  GrowGuestFilesystem: GUEST_GROW_EVENT_ACTION,
  Enable: 'Enable',
  Disable: 'Disable',
} as const;

const PHASE_EVENT: Readonly<Record<PhaseValue, EventReasonValue>> = {
  [Phase.ControllerResizing]: EventReason.ExpansionControllerResizing,
  [Phase.NodeResizePending]: EventReason.ExpansionNodeResizePending,
  [Phase.NodeResizing]: EventReason.ExpansionNodeResizing,
  [Phase.VMUpdating]: EventReason.ExpansionVMUpdating,
  [Phase.HypervisorResizing]: EventReason.ExpansionHypervisorResizing,
  [Phase.GuestVerifying]: EventReason.ExpansionGuestVerifying,
  [Phase.GuestFilesystemGrowing]: EventReason.ExpansionGuestFilesystemGrowing,
  [Phase.Completed]: EventReason.ExpansionCompleted,
  [Phase.Infeasible]: EventReason.ExpansionInfeasible,
  [Phase.Stuck]: EventReason.ExpansionStuck,
  [Phase.RolledBack]: EventReason.ExpansionRolledBack,
  [Phase.Superseded]: EventReason.ExpansionSuperseded,
};

/** The Event reason of entering a phase. */
export function phaseEventReason(phase: PhaseValue): EventReasonValue {
  return PHASE_EVENT[phase];
}
