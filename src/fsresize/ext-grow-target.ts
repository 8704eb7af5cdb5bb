/**
 * The size resize2fs grows an ext filesystem to when given no size: the device's whole blocks,
 * rounded down to a whole number of pages when the system's page is larger than the block. From
 * e2fsprogs resize/main.c (tytso/e2fsprogs): with no size argument, `new_size = max_size` (the
 * device size in blocks, ext2fs_get_device_size2) and then "Round down to an even multiple of a
 * pagesize": `if (sys_page_size > blocksize) new_size &= ~((sys_page_size / blocksize)-1)`, the
 * page size coming from sysconf(_SC_PAGESIZE). A 1 KiB-block filesystem on a device 3 KiB past a
 * page boundary therefore never covers those 3 KiB.
 */
export function extGrowTarget(deviceBytes: number, blockBytes: number, pageBytes: number): number {
  const unit = Math.max(blockBytes, pageBytes);
  return Math.floor(deviceBytes / unit) * unit;
}
