/** How the node judges that a device has grown enough for NodeExpandVolume. */
export interface GrowthTarget {
  /** The size asked for (capacity_range.required_bytes, else the host PVC's capacity). */
  requiredBytes: number;
  /**
   * The host PVC's volumeMode. A Filesystem-mode host PVC holds disk.img, which KubeVirt sizes
   * below the capacity (align_down_1MiB((1 - filesystemOverhead) * min(usable, capacity)), usable
   * unknown outside virt-launcher): the device is judged by its own growth, not by the capacity.
   */
  hostVolumeMode: 'Block' | 'Filesystem' | undefined;
  /**
   * The device's size before the expansion: its first read in this call, or the staged size (a
   * mounted filesystem's size, grown to its device at staging) when smaller.
   */
  baselineBytes: number;
}

/** KubeVirt aligns disk.img down to 1 MiB: a growth is at least that (and a filesystem's rounding below its device is less). */
export const LEAST_GROWTH_BYTES = 1024 * 1024;

/**
 * Pure: whether the device of size `current` (read after `previous`, undefined at the first
 * read) ends the wait. A device at the size asked for always does. Of a Filesystem-mode host
 * PVC, a device grown at least 1 MiB above its baseline whose size two reads in a row agree on
 * does too.
 */
export function deviceGrown(
  target: GrowthTarget,
  previous: number | undefined,
  current: number,
): boolean {
  if (current >= target.requiredBytes) return true;
  if (target.hostVolumeMode !== 'Filesystem') return false;
  return grownAboveBaseline(target, current) && previous === current;
}

/** Whether `current` is at least LEAST_GROWTH_BYTES above the baseline. */
export function grownAboveBaseline(target: GrowthTarget, current: number): boolean {
  return current >= target.baselineBytes + LEAST_GROWTH_BYTES;
}
