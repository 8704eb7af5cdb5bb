import { formatBytes, type WindowsLayout } from '../../fsresize/index.js';
import type { GuestAgent } from '../guest-agent.js';
import { GuestRunError } from '../guest-run-error.js';
import { readGuestFsinfo } from '../read/read-guest-fsinfo.js';
import type { GuestGrowthRun } from './run-guest-growth.js';

/** A grown filesystem (a Linux mount point, a Windows drive), as guest-get-fsinfo shows it before the growth and after. */
export interface GrowthProof {
  /** As the agent lists it: /data on Linux, E:\ on Windows. */
  mountPoint: string;
  beforeBytes: bigint;
  afterBytes: bigint;
}

function totalBytesOf(
  filesystems: WindowsLayout['filesystems'],
  mountPoint: string,
): number | undefined {
  return (
    filesystems.find((fs) => fs.mountPoint.toUpperCase() === mountPoint)?.totalBytes ?? undefined
  );
}

/**
 * The proof of a grown Windows run (docs/guest-growth.md "Windows"): the drive its step grew,
 * with its filesystem's total-bytes from the guest-get-fsinfo read before the plan (`layout`)
 * and from guest-get-fsinfo asked again now (qga/commands-win32.c build_guest_fsinfo:
 * GetDiskFreeSpaceEx's total of the volume). GUESTRUN_SIZE_NOT_REACHED when the agent does not
 * show the drive's filesystem larger than before; GUESTRUN_AGENT_FAILED when it does not answer.
 */
export async function proveWindowsGrowth(
  agent: GuestAgent,
  layout: WindowsLayout,
  run: GuestGrowthRun,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<GrowthProof> {
  const drive = run.steps.find((step) => step.reading === 'windows-partition')?.of ?? '';
  const mountPoint = `${drive.toUpperCase()}\\`;
  const before = totalBytesOf(layout.filesystems, mountPoint);
  const after = totalBytesOf(await readGuestFsinfo(agent, timeoutMs, signal), mountPoint);
  if (before === undefined || after === undefined || after <= before)
    throw new GuestRunError(
      'GUESTRUN_SIZE_NOT_REACHED',
      `the guest agent's guest-get-fsinfo does not show ${mountPoint} grown (before: ${before === undefined ? 'no size' : formatBytes(before)}, after: ${after === undefined ? 'no size' : formatBytes(after)}); check the volume in the guest (Get-Volume), then run voe guest grow again`,
      { details: { drive: mountPoint } },
    );
  return { mountPoint, beforeBytes: BigInt(before), afterBytes: BigInt(after) };
}
