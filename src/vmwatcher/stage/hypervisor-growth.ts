/**
 * How far the hypervisor's disk grew: `short` (not past its starting size, or below KubeVirt's
 * target for a Block disk), `settling` (a Filesystem-mode disk.img above its starting size, not
 * yet seen at the same size twice), `grown`.
 */
export type HypervisorGrowthState = 'short' | 'settling' | 'grown';

export interface HypervisorGrowth {
  state: HypervisorGrowthState;
  /** The size the disk.img grows from (Filesystem mode); undefined for Block. */
  startBytes: bigint | undefined;
}

/**
 * Whether the hypervisor's disk has grown (docs/tracker.md "Sizes"). A Block-mode disk is the
 * device: grown once libvirt's capacity reaches KubeVirt's target. A Filesystem-mode disk.img is
 * sized by virt-launcher from the space its PVC's filesystem really has (v1.8 virtwrap/manager.go
 * possibleGuestSize: (1 - overhead) x min(usable, capacity), usable = disk.img's allocation + the
 * filesystem's free space), which nobody outside virt-launcher knows, so it is judged by what
 * the hypervisor reports: grown once above its starting size and then seen at the same size
 * again (KubeVirt grows it in one BlockResize), or at once when it reached the target, which it
 * never exceeds. Its starting size is the first size read for this expansion, but no more than
 * the largest disk.img the old capacity allowed (`oldCeiling`), in case the first read came late.
 * Pure.
 */
export function judgeHypervisorGrowth(options: {
  volumeMode: string | undefined;
  /** What libvirt reports now (virsh domblkinfo Capacity). */
  readingBytes: bigint;
  /** KubeVirt's target: the device's size, or the most disk.img can reach. */
  targetBytes: bigint;
  /** The first size recorded for this expansion (status.sizes.hypervisorStart). */
  recordedStartBytes: bigint | undefined;
  /** The size the previous derivation recorded (status.sizes.hypervisor). */
  previousBytes: bigint | undefined;
  /** The largest disk.img the old capacity allowed (the VolumeExpansion's `from`), when known. */
  oldCeilingBytes: bigint | undefined;
}): HypervisorGrowth {
  const { readingBytes, targetBytes } = options;
  if (options.volumeMode === 'Block')
    return { state: readingBytes >= targetBytes ? 'grown' : 'short', startBytes: undefined };
  const first = options.recordedStartBytes ?? readingBytes;
  const startBytes =
    options.oldCeilingBytes !== undefined && options.oldCeilingBytes < first
      ? options.oldCeilingBytes
      : first;
  if (readingBytes >= targetBytes) return { state: 'grown', startBytes };
  if (readingBytes <= startBytes) return { state: 'short', startBytes };
  return { state: options.previousBytes === readingBytes ? 'grown' : 'settling', startBytes };
}
