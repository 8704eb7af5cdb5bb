import { VmLabError } from './vm-lab-error.js';

const MIB = 1024n * 1024n;

/** What virt-launcher knows of a Filesystem-mode disk when it sizes its disk.img. */
export interface GuestSizeInput {
  /** The PVC's capacity, from the VMI's persistentVolumeClaimInfo. */
  capacity: bigint;
  /** persistentVolumeClaimInfo.filesystemOverhead, a fraction as a decimal string ("0.055"). */
  filesystemOverhead: string | undefined;
  /** disk.img's allocated bytes plus the free bytes of the filesystem holding it (see usableSpace). */
  usable: bigint;
}

/**
 * The size virt-launcher gives a Filesystem-mode disk.img, as KubeVirt v1.8
 * pkg/virt-launcher/virtwrap/manager.go possibleGuestSize computes it:
 * align_down_1MiB((1 - filesystemOverhead) x min(usable, capacity)), in float64 as there. A missing
 * or unparsable overhead, or a size below 1 MiB, is what that function reports as not ok: a
 * VMLAB_DOMAIN_FAILED here. Pure.
 */
export function possibleGuestSize(input: GuestSizeInput): bigint {
  const overhead =
    input.filesystemOverhead === undefined ? Number.NaN : Number(input.filesystemOverhead);
  if (!Number.isFinite(overhead) || overhead < 0 || overhead >= 1)
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `no usable filesystem overhead (${JSON.stringify(input.filesystemOverhead)})`,
    );
  const preferred = input.usable < input.capacity ? input.usable : input.capacity;
  const size = BigInt(Math.trunc((1 - overhead) * Number(preferred)));
  const aligned = (size / MIB) * MIB;
  if (aligned <= 0n)
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `a disk.img of ${size} bytes is below 1 MiB (usable ${input.usable}, capacity ${input.capacity})`,
    );
  return aligned;
}
