import {
  GuestGrowthError,
  parseGuestFsinfo,
  parseWindowsDisks,
  parseWindowsPartitions,
  type WindowsLayout,
} from '../../fsresize/index.js';
import type { GuestAgent } from '../guest-agent.js';
import { GuestRunError } from '../guest-run-error.js';
import { DEFAULT_READ_TIMEOUT_MS } from './read-guest-layout.js';
import { readCommandOutput } from './read-command-output.js';

/** powershell.exe running one command: no profile, never waiting for input. */
function powershell(command: string): string[] {
  return ['powershell.exe', '-NoProfile', '-NonInteractive', '-Command', command];
}

/** The commands that read disk N's partitions and the disk (docs/guest-growth.md). */
export function windowsLayoutArgv(diskNumber: number): { partitions: string[]; disk: string[] } {
  return {
    partitions: powershell(
      `Get-Partition -DiskNumber ${diskNumber} | Select-Object DiskNumber,PartitionNumber,DriveLetter,Offset,Size,Type,GptType,MbrType | ConvertTo-Json`,
    ),
    disk: powershell(
      `Get-Disk -Number ${diskNumber} | Select-Object Number,Size,PartitionStyle,LogicalSectorSize | ConvertTo-Json`,
    ),
  };
}

function unreadable(what: string, stdout: string): GuestGrowthError {
  return new GuestGrowthError(
    'GUESTGROW_LAYOUT_UNREADABLE',
    `${what} in the guest did not give what voe reads: ${JSON.stringify(stdout.slice(0, 200))}`,
    'check that the guest agent can run powershell.exe and retry',
    { what },
  );
}

/**
 * What a Windows guest reports of disk `\\.\PhysicalDriveN` (planWindowsGrowth's WindowsLayout):
 * the agent's guest-get-fsinfo, then Get-Partition and Get-Disk of disk N through powershell.exe
 * (guest-exec, argument lists). The disk number is a number, so nothing of the caller's reaches
 * the PowerShell text but digits.
 */
export async function readWindowsLayout(
  agent: GuestAgent,
  target: { disk: string; timeoutMs?: number },
  signal?: AbortSignal,
): Promise<WindowsLayout> {
  const timeoutMs = target.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const number = /^\\\\\.\\PhysicalDrive(\d+)$/i.exec(target.disk)?.[1];
  if (number === undefined)
    throw new GuestRunError(
      'GUESTRUN_DISK_NOT_FOUND',
      `${JSON.stringify(target.disk)} is not a Windows disk (\\\\.\\PhysicalDriveN)`,
    );
  let answer: unknown;
  try {
    answer = await agent.fsinfo(timeoutMs, signal);
  } catch (error) {
    throw new GuestRunError(
      'GUESTRUN_AGENT_FAILED',
      `the guest agent (through ${agent.name}) did not answer guest-get-fsinfo: ${(error as Error).message}; check that the guest agent runs, then retry`,
      { cause: error },
    );
  }
  const filesystems = parseGuestFsinfo(answer);
  if (filesystems === null)
    throw unreadable('guest-get-fsinfo', JSON.stringify(answer) ?? String(answer));
  const argv = windowsLayoutArgv(Number(number));
  const partitionsText = await readCommandOutput(agent, argv.partitions, timeoutMs, signal);
  const partitions = parseWindowsPartitions(partitionsText);
  if (partitions === null) throw unreadable('Get-Partition', partitionsText);
  const diskText = await readCommandOutput(agent, argv.disk, timeoutMs, signal);
  const disks = parseWindowsDisks(diskText);
  if (disks === null) throw unreadable('Get-Disk', diskText);
  return { filesystems, partitions, disks };
}
