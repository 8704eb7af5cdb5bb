import type { TrackedVmi } from './tracker-objects.js';

/** One volume of a running VMI, as a guest probe is asked about it. */
export interface ProbeTarget {
  vmi: TrackedVmi;
  /** The VMI volume's name and its disk target (vda, sda...). */
  volumeName: string;
  target: string | undefined;
  claimName: string;
}

/** What a guest probe measured; a size is absent when it could not be read. */
export interface ProbeReading {
  /** The disk's capacity as the hypervisor has it (virsh domblkinfo). */
  hypervisorBytes?: bigint;
  /** The block device's size as the guest sees it. */
  guestBytes?: bigint;
}

/**
 * The port through which the tracker sees past the VMI: the hypervisor's and the guest's view of
 * a disk. No production adapter exists yet (guest verification has its own issue): without one,
 * an expansion waits at HypervisorResizing with reason NoGuestProbe.
 */
export interface GuestProbe {
  read(target: ProbeTarget, signal?: AbortSignal): Promise<ProbeReading>;
}
