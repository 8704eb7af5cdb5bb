/**
 * One partition as `Get-Partition -DiskNumber N | Select-Object
 * DiskNumber,PartitionNumber,DriveLetter,Offset,Size,Type,GptType,MbrType | ConvertTo-Json`
 * prints it (Windows PowerShell 5.1: a [char] drive letter as a one-letter string, "\u0000"
 * without one; one object alone is not in a list).
 */
export interface WindowsPartition {
  diskNumber: number;
  partitionNumber: number;
  /** The drive letter (upper case); null without one. */
  driveLetter: string | null;
  offsetBytes: number;
  bytes: number;
  /** Type: Basic, System, Reserved, Recovery, IFS, ... */
  type: string;
  /** GptType, e.g. {de94bba4-06d1-4d40-a16a-bfd50179d6ac} (recovery); null on MBR. */
  gptType: string | null;
  /** MbrType, e.g. 39 (0x27, recovery), 7 (NTFS); null on GPT. */
  mbrType: number | null;
}

/** One disk as `Get-Disk -Number N | Select-Object Number,Size,PartitionStyle,LogicalSectorSize | ConvertTo-Json` prints it. */
export interface WindowsDisk {
  number: number;
  bytes: number;
  /** GPT or MBR (PartitionStyle prints as a name, or as its number 1 MBR, 2 GPT). */
  partitionStyle: 'GPT' | 'MBR' | 'RAW';
  sectorBytes: number;
}

/** ConvertTo-Json's answer as a list: one object alone, or a list. */
function listOf(stdout: string): Array<Record<string, unknown>> | null {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return null;
  }
  if (Array.isArray(value)) return value as Array<Record<string, unknown>>;
  return typeof value === 'object' && value !== null ? [value as Record<string, unknown>] : null;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function letterOf(value: unknown): string | null {
  const letter = typeof value === 'number' ? String.fromCharCode(value) : value;
  return typeof letter === 'string' && /^[A-Za-z]$/.test(letter) ? letter.toUpperCase() : null;
}

/** Get-Partition's JSON; null when it is not that JSON or a partition lacks a number, offset or size. Pure. */
export function parseWindowsPartitions(stdout: string): WindowsPartition[] | null {
  const items = listOf(stdout);
  if (items === null) return null;
  const partitions: WindowsPartition[] = [];
  for (const item of items) {
    const diskNumber = count(item['DiskNumber']);
    const partitionNumber = count(item['PartitionNumber']);
    const offsetBytes = count(item['Offset']);
    const bytes = count(item['Size']);
    if (diskNumber === null || partitionNumber === null || offsetBytes === null || bytes === null)
      return null;
    partitions.push({
      diskNumber,
      partitionNumber,
      driveLetter: letterOf(item['DriveLetter']),
      offsetBytes,
      bytes,
      type: typeof item['Type'] === 'string' ? item['Type'] : '',
      gptType: typeof item['GptType'] === 'string' ? item['GptType'] : null,
      mbrType: count(item['MbrType']),
    });
  }
  return partitions;
}

const STYLES: Record<string, WindowsDisk['partitionStyle']> = {
  GPT: 'GPT',
  MBR: 'MBR',
  RAW: 'RAW',
  '0': 'RAW',
  '1': 'MBR',
  '2': 'GPT',
};

/** Get-Disk's JSON; null when it is not that JSON or a disk lacks its number, size or style. Pure. */
export function parseWindowsDisks(stdout: string): WindowsDisk[] | null {
  const items = listOf(stdout);
  if (items === null) return null;
  const disks: WindowsDisk[] = [];
  for (const item of items) {
    const number = count(item['Number']);
    const bytes = count(item['Size']);
    const partitionStyle = STYLES[String(item['PartitionStyle'])];
    const sectorBytes =
      item['LogicalSectorSize'] === undefined ? 512 : count(item['LogicalSectorSize']);
    if (number === null || bytes === null || partitionStyle === undefined || !sectorBytes)
      return null;
    disks.push({ number, bytes, partitionStyle, sectorBytes });
  }
  return disks;
}
