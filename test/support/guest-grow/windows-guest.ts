import { ScriptedAgent, type GuestStage, type ScriptedReply } from './scripted-agent.js';

/** The Windows disk of these guests: disk 1, E: on its second partition (after the MSR). */
export const WINDOWS_DISK = '\\\\.\\PhysicalDrive1';

const POWERSHELL = 'powershell.exe -NoProfile -NonInteractive -Command';
export const GET_PARTITION_1 = `${POWERSHELL} Get-Partition -DiskNumber 1 | Select-Object DiskNumber,PartitionNumber,DriveLetter,Offset,Size,Type,GptType,MbrType | ConvertTo-Json`;
export const GET_DISK_1 = `${POWERSHELL} Get-Disk -Number 1 | Select-Object Number,Size,PartitionStyle,LogicalSectorSize | ConvertTo-Json`;

/** The step that grows E:, as the guest agent is asked to run it. */
export const RESIZE_E = [
  'powershell.exe',
  '-NoProfile',
  '-NonInteractive',
  '-Command',
  'Resize-Partition -DriveLetter E -Size (Get-PartitionSupportedSize -DriveLetter E).SizeMax',
];

/** Where E: starts: after the 16 MiB Microsoft Reserved partition Windows Setup puts at 17408. */
export const E_OFFSET = 16777216;

/** E:'s size once Resize-Partition took all it may on a GPT disk of `diskBytes`: up to the last usable sector (the backup header's 33 sectors and the last one kept). */
export function grownDriveBytes(diskBytes: number): number {
  return diskBytes - E_OFFSET - 33 * 512 - 512;
}

/** One moment of the guest: its disk's size, E:'s partition size, whether a recovery partition follows E:. */
export interface WindowsMoment {
  diskBytes: number;
  driveBytes: number;
  recovery?: boolean;
  /** What guest-get-fsinfo gives as E:'s total-bytes; the partition's size unless told. */
  volumeBytes?: number;
  /** The disk's serial, when the VM sets one. */
  serial?: string;
}

/** What Get-Partition and Get-Disk print at `moment` (Windows PowerShell 5.1 through ConvertTo-Json). */
export function windowsStage(moment: WindowsMoment): GuestStage {
  const partitions: object[] = [
    {
      DiskNumber: 1,
      PartitionNumber: 1,
      DriveLetter: '\u0000',
      Offset: 17408,
      Size: 16759808,
      Type: 'Reserved',
      GptType: '{e3c9e316-0b5c-4db8-817d-f92df00215ae}',
      MbrType: null,
    },
    {
      DiskNumber: 1,
      PartitionNumber: 2,
      DriveLetter: 'E',
      Offset: E_OFFSET,
      Size: moment.driveBytes,
      Type: 'Basic',
      GptType: '{ebd0a0a2-b9e5-4433-87c0-68b6b72699c7}',
      MbrType: null,
    },
  ];
  if (moment.recovery)
    partitions.push({
      DiskNumber: 1,
      PartitionNumber: 3,
      DriveLetter: '\u0000',
      Offset: E_OFFSET + moment.driveBytes,
      Size: 523239424,
      Type: 'Recovery',
      GptType: '{de94bba4-06d1-4d40-a16a-bfd50179d6ac}',
      MbrType: null,
    });
  return {
    [GET_PARTITION_1]: JSON.stringify(partitions),
    [GET_DISK_1]: JSON.stringify({
      Number: 1,
      Size: moment.diskBytes,
      PartitionStyle: 'GPT',
      LogicalSectorSize: 512,
    }),
  };
}

/** guest-get-fsinfo at `moment` as qemu-ga on Windows answers it: E: on \\.\PhysicalDrive1 (a SCSI disk). */
export function windowsFsinfo(moment: WindowsMoment): unknown {
  return [
    {
      name: '\\\\?\\Volume{5f1e3c2a-0000-0000-0000-100000000000}\\',
      mountpoint: 'E:\\',
      type: 'NTFS',
      'used-bytes': 1_048_576,
      'total-bytes': moment.volumeBytes ?? moment.driveBytes,
      disk: [
        {
          'pci-controller': { domain: 0, bus: 2, slot: 1, function: 0 },
          'bus-type': 'scsi',
          bus: 0,
          target: 0,
          unit: 1,
          ...(moment.serial === undefined ? {} : { serial: moment.serial }),
          dev: WINDOWS_DISK,
        },
      ],
    },
  ];
}

/**
 * A scripted Windows guest: Get-Partition and Get-Disk answer from the current moment, as does
 * guest-get-fsinfo; any other command (the growth's step) exits 0, or as `steps` says, and moves
 * the guest to its next moment.
 */
export function windowsAgent(
  moments: readonly WindowsMoment[],
  steps: Record<string, ScriptedReply> = {},
): ScriptedAgent {
  const agent = new ScriptedAgent(moments.map(windowsStage), [], steps);
  agent.fsinfo = async () => windowsFsinfo(moments[agent.stage]!);
  return agent;
}
