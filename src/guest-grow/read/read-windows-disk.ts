import { GuestGrowthError, parseWindowsDisks, type WindowsDisk } from '../../fsresize/index.js';
import type { GuestAgent } from '../guest-agent.js';
import { readCommandOutput } from './read-command-output.js';
import { windowsLayoutArgv } from './windows-layout-argv.js';

/** GUESTGROW_LAYOUT_UNREADABLE: what a Windows guest printed for `what` is not what voe reads. */
export function unreadableWindowsOutput(what: string, stdout: string): GuestGrowthError {
  return new GuestGrowthError(
    'GUESTGROW_LAYOUT_UNREADABLE',
    `${what} in the guest did not give what voe reads: ${JSON.stringify(stdout.slice(0, 200))}`,
    'check that the guest agent can run powershell.exe and retry',
    { what },
  );
}

/**
 * Disk N of a Windows guest as Get-Disk reports it (its size, partition style and sector size),
 * through powershell.exe by guest-exec (an argument list; nothing but the number's digits
 * reaches the PowerShell text). GUESTGROW_LAYOUT_UNREADABLE when the command fails or prints no
 * disk N.
 */
export async function readWindowsDisk(
  agent: GuestAgent,
  diskNumber: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<WindowsDisk> {
  const text = await readCommandOutput(
    agent,
    windowsLayoutArgv(diskNumber).disk,
    timeoutMs,
    signal,
  );
  const disk = parseWindowsDisks(text)?.find((entry) => entry.number === diskNumber);
  if (disk === undefined) throw unreadableWindowsOutput('Get-Disk', text);
  return disk;
}
