import type { PhaseValue, WaitingForValue } from '../expansion-phase.js';
import type { StageReasonValue } from '../stage-reason.js';
import type { GuestFilesystemStatus, ObservedSizes, VolumePods } from '../volume-expansion.js';

/** Where one layer holds the expansion: its phase, whom it waits for, why, and what to do. */
export interface Verdict {
  phase: PhaseValue;
  waitingFor: WaitingForValue | undefined;
  reason: StageReasonValue | string;
  message: string;
  /** The phase NoProgress is measured on; undefined for final phases and Infeasible. */
  progressPhase: PhaseValue | undefined;
  /** What the guest's filesystem growth found or did (a grower configured, the guest sees the disk). */
  guestFilesystem?: GuestFilesystemStatus;
}

/** What one layer read on its way, whether or not it holds the expansion. */
export interface LayerRecord {
  /** The sizes the layer read, as the VolumeExpansion's status shows them. */
  sizes: ObservedSizes;
  /** The pods the layer found holding the volume. */
  pods: VolumePods;
  /** Malformed input the layer met (for the log): which field, its text. */
  problems: readonly string[];
}

/**
 * One layer's finding (Kubernetes, KubeVirt, hypervisor, guest): what it read, and either the
 * verdict that holds the expansion in it, or what the next layer needs to go on.
 */
export type LayerFinding<Handover> = LayerRecord &
  ({ verdict: Verdict; handover?: undefined } | { verdict?: undefined; handover: Handover });

/** The claim a derivation is about: its namespace, name, and namespace/name for messages. */
export interface ClaimRef {
  namespace: string;
  name: string;
  /** namespace/name, for messages. */
  label: string;
}
