/** The most blocks an ext filesystem without the 64bit feature can span (32-bit block numbers). */
export const EXT_32BIT_MAX_BLOCKS = 2 ** 32 - 1;

/**
 * The size resize2fs grows an ext filesystem to when given no size: the device's whole blocks,
 * rounded down to a whole number of pages when the system's page is larger than the block. From
 * e2fsprogs resize/main.c (tytso/e2fsprogs): with no size argument, `new_size = max_size` (the
 * device size in blocks, ext2fs_get_device_size2) and then "Round down to an even multiple of a
 * pagesize": `if (sys_page_size > blocksize) new_size &= ~((sys_page_size / blocksize)-1)`, the
 * page size coming from sysconf(_SC_PAGESIZE). A 1 KiB-block filesystem on a device 3 KiB past a
 * page boundary therefore never covers those 3 KiB.
 *
 * `bit64` false (no 64bit feature): the same code then takes a size of exactly 2^32 blocks down
 * to 2^32-1 ("Take 16T down to 2^32-1 blocks") and exits 1 on anything larger ("New size too
 * large to be expressed in 32 bits"), mounted or not: a result above EXT_32BIT_MAX_BLOCKS blocks
 * is a size resize2fs refuses (planGrow refuses it first, FSRESIZE_EXT_32BIT_LIMIT).
 */
export function extGrowTarget(
  deviceBytes: number,
  blockBytes: number,
  pageBytes: number,
  bit64 = true,
): number {
  const unit = Math.max(blockBytes, pageBytes);
  const target = Math.floor(deviceBytes / unit) * unit;
  return !bit64 && target === 2 ** 32 * blockBytes ? EXT_32BIT_MAX_BLOCKS * blockBytes : target;
}
