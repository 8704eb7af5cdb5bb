import type { GuestAgent } from '../guest-agent.js';
import { readGuestFsinfo } from './read-guest-fsinfo.js';

/**
 * The size of the filesystem mounted at `mountPoint` as the guest's own kernel reports it to its
 * users: `total-bytes` of that mount point in the agent's guest-get-fsinfo (QEMU's qemu-ga takes
 * it from statvfs: the blocks used and available, what df shows). Undefined when the agent lists
 * no such mount point or gives no total (QEMU before 3.0); a failed or unreadable call rejects
 * (readGuestFsinfo).
 */
export async function readFilesystemTotalBytes(
  agent: GuestAgent,
  mountPoint: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const entries = await readGuestFsinfo(agent, timeoutMs, signal);
  return entries.find((entry) => entry.mountPoint === mountPoint)?.totalBytes ?? undefined;
}
