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
