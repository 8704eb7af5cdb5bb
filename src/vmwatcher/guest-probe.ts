import type { VirtualMachineInstance } from '../model/index.js';

/** One volume of a running VMI, as a guest probe is asked about it. */
export interface ProbeTarget {
  vmi: VirtualMachineInstance;
  /** The VMI volume's name and its disk target (vda, sda...). */
  volumeName: string;
  target: string | undefined;
  claimName: string;
  /** The active virt-launcher pod holding the domain (where `virsh` runs in production). */
  launcherPod?: string | undefined;
  /** The user that pod's compute container runs as (0: a root launcher), when the pod says. */
  launcherUser?: number | undefined;
}

/** What the guest's size measures: its block device, or (the agent's filesystem list) a filesystem on it. */
export type GuestEvidence = 'BlockDevice' | 'Filesystem';

/** What a guest probe measured; a size is absent when it could not be read. */
export interface ProbeReading {
  /** The disk's capacity as the hypervisor has it (virsh domblkinfo). */
  hypervisorBytes?: bigint;
  /** The guest's size of the disk: its block device's, or a filesystem's (guestEvidence). */
  guestBytes?: bigint;
  /** What guestBytes measures; BlockDevice when unset. */
  guestEvidence?: GuestEvidence;
  /** The guest's device the disk was matched to (vda, sdb; \\.\PhysicalDriveN on Windows), or the filesystem's mount point. */
  guestDevice?: string;
  /** The guest cannot be asked (no guest agent connected): why, and what to do. */
  guestUnverifiable?: string;
  /** What the user can do when the guest is unverifiable, when it differs from installing the guest agent. */
  guestUnverifiableRemedy?: string;
  /** The probe could not read a size (virsh failed, timed out, or backs off after failures): why. */
  failure?: string;
}

/**
 * The port through which the tracker sees past the VMI: the hypervisor's and the guest's view of
 * a disk. The production adapter is VirshGuestProbe (src/vmwatcher/probe): `virsh` in the
 * virt-launcher pod through pods/exec, or a local process against a local libvirt (the lab).
 * Without a probe, an expansion waits at HypervisorResizing with reason NoGuestProbe.
 */
export interface GuestProbe {
  read(target: ProbeTarget, signal?: AbortSignal): Promise<ProbeReading>;
}
