import type { PartitionTable } from '../parse/parse-sfdisk-json.js';

/**
 * Free space under this is no growth: growpart leaves a partition alone ("could only be grown
 * by ...") when less than its 1 MiB fudge follows it, and the guest plan does the same, so that
 * a second run plans nothing.
 */
export const PARTITION_SLACK_BYTES = 1024 * 1024;

/** The bytes of a standard GPT entry array: 128 entries of 128 bytes. */
const GPT_ENTRIES_BYTES = 128 * 128;

/**
 * The last sector a partition starting at `start` may end on once the table spans the whole
 * disk of `diskBytes`:
 * - GPT keeps a backup copy at the disk's end: the backup header in the last sector and the
 *   entry array before it (32 sectors of 512 bytes, 4 of 4096), so the last usable sector is
 *   the disk's sectors less 2 less the array's sectors (N-34 on 512-byte sectors, the 33 sectors
 *   of the backup plus the sector index): where `sfdisk --relocate gpt-bak-std` puts it;
 * - MBR keeps nothing at the end, but counts a partition's size in 32 bits: at most 2^32-1
 *   sectors from its start (the rest of a larger disk stays unused, as growpart leaves it).
 */
export function partitionUsableEnd(
  table: PartitionTable,
  diskBytes: number,
  start: number,
): number {
  const sectors = Math.floor(diskBytes / table.sectorBytes);
  if (table.label === 'gpt') return sectors - 2 - Math.ceil(GPT_ENTRIES_BYTES / table.sectorBytes);
  return Math.min(sectors - 1, start + 2 ** 32 - 2);
}
