/** One partition as `sfdisk --json DISK` lists it, in sectors. */
export interface SfdiskPartition {
  /** The partition's device, e.g. /dev/vda2 (sfdisk names it from the disk and the number). */
  node: string;
  /** Its number in the table: 2 for /dev/vda2, /dev/nvme0n1p2. */
  number: number;
  start: number;
  size: number;
  /** The type: a GUID on GPT, a hex byte (83, 8e, 27) on MBR. */
  type: string;
}

/** `sfdisk --json DISK`: the partition table as it is on the disk. */
export interface PartitionTable {
  /** gpt or dos (MBR); other labels (sun, sgi) are kept as named. */
  label: string;
  device: string;
  sectorBytes: number;
  /**
   * GPT only: the last sector a partition may use, as the primary header records it. After the
   * disk grew it stays where the old end put it until the backup header is moved
   * (`sfdisk --relocate gpt-bak-std`; growpart does it too).
   */
  lastLba: number | null;
  /** In the order sfdisk lists them (the table's order, not necessarily the disk's). */
  partitions: SfdiskPartition[];
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** The number at the end of a partition's node: /dev/vda2 → 2, /dev/nvme0n1p12 → 12. */
function numberOfNode(node: string, disk: string): number | null {
  const rest = node.startsWith(disk) ? node.slice(disk.length) : node;
  const match = /p?(\d+)$/.exec(rest);
  return match ? Number(match[1]) : null;
}

/**
 * `sfdisk --json DISK`'s `partitiontable` (util-linux 2.38: label, id, device, unit "sectors",
 * firstlba/lastlba on GPT, sectorsize, partitions of node/start/size/type). Null when the text is
 * not that JSON or a partition lacks its node, start or size, or the unit is not sectors. Pure.
 */
export function parseSfdiskJson(stdout: string): PartitionTable | null {
  let root: unknown;
  try {
    root = JSON.parse(stdout);
  } catch {
    return null;
  }
  const table = (root as { partitiontable?: Record<string, unknown> } | null)?.partitiontable;
  if (typeof table !== 'object' || table === null) return null;
  const label = table['label'];
  const device = table['device'];
  if (typeof label !== 'string' || typeof device !== 'string') return null;
  if (table['unit'] !== undefined && table['unit'] !== 'sectors') return null;
  // sfdisk prints sectorsize since 2.35; before, sectors were always 512 bytes in its output.
  const sectorBytes = table['sectorsize'] === undefined ? 512 : count(table['sectorsize']);
  if (sectorBytes === null || sectorBytes === 0) return null;
  const partitions: SfdiskPartition[] = [];
  for (const item of Array.isArray(table['partitions'])
    ? (table['partitions'] as Array<Record<string, unknown>>)
    : []) {
    const node = typeof item?.['node'] === 'string' ? item['node'] : null;
    const start = count(item?.['start']);
    const size = count(item?.['size']);
    const number = node === null ? null : numberOfNode(node, device);
    if (node === null || start === null || size === null || number === null) return null;
    partitions.push({
      node,
      number,
      start,
      size,
      type: typeof item['type'] === 'string' ? item['type'] : '',
    });
  }
  return {
    label,
    device,
    sectorBytes,
    lastLba: label === 'gpt' ? count(table['lastlba']) : null,
    partitions,
  };
}
