import { GuestGrowthError } from '../model/guest-growth-error.js';
import type { GuestGrowthPlan, GuestStep } from '../model/guest-growth-plan.js';
import type { GuestFsinfoEntry } from '../parse/parse-guest-fsinfo.js';
import type { WindowsDisk, WindowsPartition } from '../parse/parse-windows-storage.js';
import { formatBytePair } from './format-byte-pair.js';
import { formatBytes } from './format-bytes.js';
import { physicalDriveNumber } from '../parse/physical-drive-number.js';

/** What a Windows guest reports: the agent's guest-get-fsinfo, and its disk's Get-Partition and Get-Disk. */
export interface WindowsLayout {
  filesystems: readonly GuestFsinfoEntry[];
  partitions: readonly WindowsPartition[];
  disks: readonly WindowsDisk[];
}

/** Which disk: its `dev` in guest-get-fsinfo, \\.\PhysicalDriveN. */
export interface WindowsGrowthTarget {
  disk: string;
}

/** Resize-Partition refuses a change under 1 MB ("The size of the extent is less than the minimum of 1MB"). */
const WINDOWS_MIN_GROWTH_BYTES = 1024 * 1024;

/** The filesystems Resize-Partition extends in place. */
const GROWN_FILESYSTEMS = ['NTFS', 'REFS'];

/** The recovery partition's GPT type and MBR type (0x27). */
const RECOVERY_GPT_TYPE = 'de94bba4-06d1-4d40-a16a-bfd50179d6ac';
const RECOVERY_MBR_TYPE = 0x27;

function isRecovery(partition: WindowsPartition): boolean {
  return (
    partition.type === 'Recovery' ||
    (partition.gptType ?? '').toLowerCase().includes(RECOVERY_GPT_TYPE) ||
    partition.mbrType === RECOVERY_MBR_TYPE
  );
}

/**
 * The argv that grows drive `letter` to the largest size its partition supports:
 * `Resize-Partition -DriveLetter X -Size (Get-PartitionSupportedSize -DriveLetter X).SizeMax`
 * through powershell.exe (no profile, never waiting for input).
 */
export function windowsResizeArgv(letter: string): string[] {
  return [
    'powershell.exe',
    '-NoProfile',
    '-NonInteractive',
    '-Command',
    `Resize-Partition -DriveLetter ${letter} -Size (Get-PartitionSupportedSize -DriveLetter ${letter}).SizeMax`,
  ];
}

/**
 * The pure plan for a Windows guest: the drive on the disk (by its letter in the agent's
 * mount list; the last lettered partition of the disk when it has several) grown into the free
 * space after it by Resize-Partition, one step, none when less than 1 MB follows it. Refused: no
 * drive letter on the disk, a filesystem other than NTFS or ReFS, a recovery partition after the
 * drive (recent Windows Setup puts it there), any other partition after it, a partition
 * reaching past the disk. Designed on the agent's documented answers; runGuestGrowth
 * (src/guest-grow) runs it through guest-exec.
 */
export function planWindowsGrowth(
  layout: WindowsLayout,
  target: WindowsGrowthTarget,
): GuestGrowthPlan {
  try {
    return { kind: 'grow', guest: 'windows', steps: windowsSteps(layout, target) };
  } catch (error) {
    if (error instanceof GuestGrowthError) return { kind: 'refuse', error };
    throw error;
  }
}

function windowsSteps(layout: WindowsLayout, target: WindowsGrowthTarget): GuestStep[] {
  const drives = layout.filesystems.filter(
    (fs) => /^[A-Za-z]:\\$/.test(fs.mountPoint) && fs.disks.some((d) => d.dev === target.disk),
  );
  if (drives.length === 0) {
    throw new GuestGrowthError(
      'GUESTGROW_NOT_MOUNTED',
      `no volume with a drive letter is on ${target.disk} in the guest's mount list (guest-get-fsinfo)`,
      'give the volume a drive letter in the guest (Disk Management) and retry, or extend it there by hand',
      { disk: target.disk },
    );
  }
  const number = physicalDriveNumber(target.disk);
  const disk = layout.disks.find((d) => d.number === number);
  const letters = new Map(drives.map((fs) => [fs.mountPoint[0]!.toUpperCase(), fs]));
  const onDisk = layout.partitions
    .filter((p) => p.diskNumber === number)
    .sort((a, b) => a.offsetBytes - b.offsetBytes);
  const lettered = onDisk.filter((p) => p.driveLetter !== null && letters.has(p.driveLetter));
  const partition = lettered.at(-1);
  if (disk === undefined || partition === undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_LAYOUT_UNREADABLE',
      `the partitions of ${target.disk} were not read (Get-Disk and Get-Partition)`,
      'check that the guest agent can run powershell.exe and retry',
      { disk: target.disk },
    );
  }
  const letter = partition.driveLetter!;
  const filesystem = letters.get(letter)!.type;
  if (!GROWN_FILESYSTEMS.includes(filesystem.toUpperCase())) {
    throw new GuestGrowthError(
      'GUESTGROW_UNSUPPORTED_FILESYSTEM',
      `${letter}: holds ${filesystem}, which Resize-Partition does not extend (voe grows NTFS and ReFS on Windows)`,
      'grow it in the guest with its own tools',
      { drive: `${letter}:`, filesystem },
    );
  }
  const after = onDisk.filter((p) => p.offsetBytes > partition.offsetBytes);
  const recovery = after.find(isRecovery);
  if (recovery !== undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_WINDOWS_RECOVERY_PARTITION',
      `the recovery partition (partition ${recovery.partitionNumber}, ${formatBytes(recovery.bytes)}) follows ${letter}: on disk ${disk.number}, so ${letter}: cannot grow into the new space after it`,
      `move the recovery partition to the disk's end, or disable it (reagentc /disable), delete it, extend ${letter}: and recreate it (reagentc /enable)`,
      { drive: `${letter}:`, partition: recovery.partitionNumber },
    );
  }
  const next = after[0];
  if (next !== undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_NOT_LAST_PARTITION',
      `${letter}: is partition ${partition.partitionNumber} of disk ${disk.number}, and partition ${next.partitionNumber}${next.driveLetter ? ` (${next.driveLetter}:)` : ''} follows it: a partition grows only into the free space after it`,
      `move or remove partition ${next.partitionNumber} (its data saved), or use the new space as a new volume`,
      { drive: `${letter}:`, partition: next.partitionNumber },
    );
  }
  // GPT keeps its backup header and entries in the disk's last 33 sectors (of 512 bytes).
  const reserved = disk.partitionStyle === 'GPT' ? 1 + Math.ceil(16384 / disk.sectorBytes) : 0;
  const end = disk.bytes - reserved * disk.sectorBytes;
  const partitionEnd = partition.offsetBytes + partition.bytes;
  if (partitionEnd > end) {
    throw new GuestGrowthError(
      'GUESTGROW_WOULD_SHRINK',
      `${letter}: ends past where a partition may end on disk ${disk.number} (${formatBytes(disk.bytes)}): fitting it would shrink it`,
      'check the disk in the guest: was the volume made smaller?',
      { drive: `${letter}:` },
    );
  }
  const free = end - partitionEnd;
  if (free < WINDOWS_MIN_GROWTH_BYTES) return [];
  const [from, to] = formatBytePair(partition.bytes, partition.bytes + free);
  return [
    {
      argv: windowsResizeArgv(letter),
      why: `extend ${letter}: (${filesystem}, partition ${partition.partitionNumber} of disk ${disk.number}) from ${from} to about ${to}, into the free space after it`,
      expect: {
        reading: 'windows-partition',
        of: `${letter}:`,
        beforeBytes: partition.bytes,
        atLeastBytes: partition.bytes + free - WINDOWS_MIN_GROWTH_BYTES,
      },
    },
  ];
}
