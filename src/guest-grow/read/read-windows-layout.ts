import {
  parseWindowsPartitions,
  physicalDriveNumber,
  type WindowsLayout,
} from '../../fsresize/index.js';
import type { GuestAgent } from '../guest-agent.js';
import { GuestRunError } from '../guest-run-error.js';
import { DEFAULT_READ_TIMEOUT_MS } from './read-guest-layout.js';
import { readCommandOutput } from './read-command-output.js';
import { windowsLayoutArgv } from './windows-layout-argv.js';
import { readGuestFsinfo } from './read-guest-fsinfo.js';
import { readWindowsDisk, unreadableWindowsOutput as unreadable } from './read-windows-disk.js';

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
  const number = physicalDriveNumber(target.disk);
  if (number === undefined)
    throw new GuestRunError(
      'GUESTRUN_DISK_NOT_FOUND',
      `${JSON.stringify(target.disk)} is not a Windows disk (\\\\.\\PhysicalDriveN)`,
    );
  const filesystems = await readGuestFsinfo(agent, timeoutMs, signal);
  const argv = windowsLayoutArgv(number);
  const partitionsText = await readCommandOutput(agent, argv.partitions, timeoutMs, signal);
  const partitions = parseWindowsPartitions(partitionsText);
  if (partitions === null) throw unreadable('Get-Partition', partitionsText);
  const disk = await readWindowsDisk(agent, number, timeoutMs, signal);
  return { filesystems, partitions, disks: [disk] };
}
