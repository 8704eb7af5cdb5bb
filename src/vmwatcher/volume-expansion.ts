import type { GuestEvidence } from './guest-probe.js';
import type { PhaseValue, WaitingForValue } from './expansion-phase.js';
import type { LiveMeta } from '../model/index.js';

export const VOLUME_EXPANSION_GROUP = 'storage.voe.dev';
export const VOLUME_EXPANSION_VERSION = 'v1alpha1';
export const VOLUME_EXPANSION_API_VERSION = `${VOLUME_EXPANSION_GROUP}/${VOLUME_EXPANSION_VERSION}`;
export const VOLUME_EXPANSION_KIND = 'VolumeExpansion';
export const VOLUME_EXPANSION_PLURAL = 'volumeexpansions';
/** Label on every VolumeExpansion: the PVC it follows (its name, same namespace). */
export const PVC_LABEL = 'storage.voe.dev/pvc';

export const VOLUME_EXPANSIONS = {
  group: VOLUME_EXPANSION_GROUP,
  version: VOLUME_EXPANSION_VERSION,
  plural: VOLUME_EXPANSION_PLURAL,
} as const;

/**
 * The sizes the tracker observed, as the objects carry them (quantity text), absent when not
 * known: the PVC's request, allocatedResources and status.capacity, the PV's capacity, the VMI's
 * persistentVolumeClaimInfo capacity and requests, the size the guest is expected to see, and the
 * hypervisor's and guest's sizes (bytes) when a guest probe measured them, with what the guest's
 * size measures (its block device, or a filesystem when the guest refused guest-exec) and where.
 */
export interface ObservedSizes {
  request?: string;
  allocated?: string;
  pv?: string;
  pvcCapacity?: string;
  vmiCapacity?: string;
  vmiRequests?: string;
  expected?: string;
  hypervisor?: string;
  /** Filesystem mode: the hypervisor's first size read for this expansion (bytes), what disk.img grows from. */
  hypervisorStart?: string;
  guest?: string;
  guestEvidence?: GuestEvidence;
  /** The guest's block device (vda, sdb) or, for a filesystem, its mount point. */
  guestDevice?: string;
}

/** One command run in the guest by the tracker's growth: its line, exit code and output (trimmed). */
export interface GuestCommandRecord {
  command: string;
  exitCode?: number;
  output?: string;
}

/**
 * The growth of the guest's filesystem (opted-in VMs, docs/guest-growth.md): the result, the
 * filesystem grown and its bytes before and after as the guest reports them, the commands run;
 * for a refusal its code; without opt-in, the commands a user can run (`commands`, nothing ran).
 */
export interface GuestFilesystemStatus {
  /** Grown, NothingToDo, Refused, Failed; Planned: not opted in, the commands are for the user. */
  result?: 'Grown' | 'NothingToDo' | 'Refused' | 'Failed' | 'Planned' | 'Unreadable';
  /** A refusal's or failure's stable code (GUESTGROW_*, or the runner's). */
  code?: string;
  mountPoint?: string;
  beforeBytes?: string;
  afterBytes?: string;
  /** The lines to run in the guest (the plan), or, when voe ran them, what ran. */
  commands?: GuestCommandRecord[];
}

/** The pods that hold the volume: the active virt-launcher and, for a hotplugged volume, the hotplug pod. */
export interface VolumePods {
  launcher?: string;
  hotplug?: string;
}

export interface VolumeExpansionStatus {
  phase?: PhaseValue;
  waitingFor?: WaitingForValue;
  reason?: string;
  message?: string;
  /** When the object entered each phase (first time), RFC 3339. */
  phaseTimestamps?: Partial<Record<PhaseValue, string>>;
  /** When the phase last changed. */
  lastTransitionTime?: string;
  /**
   * The phase the actors' writes put the expansion in (before stuck detection) and since when:
   * NoProgress counts from `since`.
   */
  progress?: { phase?: PhaseValue; since?: string };
  sizes?: ObservedSizes;
  pods?: VolumePods;
  guestFilesystem?: GuestFilesystemStatus;
}

export interface VolumeExpansion {
  apiVersion?: string;
  kind?: string;
  metadata?: LiveMeta;
  spec?: {
    pvcName?: string;
    vmName?: string;
    /** The PVC's status.capacity when the size was requested. */
    from?: string;
    /** The requested size this object follows. */
    to?: string;
  };
  status?: VolumeExpansionStatus;
}
