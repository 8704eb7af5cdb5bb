import { parseGuestFsinfo, type GuestFsinfoEntry } from '../../fsresize/index.js';
import type { GuestAgent } from '../guest-agent.js';
import { GuestRunError } from '../guest-run-error.js';
import { unreadableWindowsOutput } from './read-windows-disk.js';

/**
 * The guest's filesystems as its agent's guest-get-fsinfo lists them (parseGuestFsinfo).
 * GUESTRUN_AGENT_FAILED when the agent does not answer; GUESTGROW_LAYOUT_UNREADABLE when the
 * answer is not the schema's list.
 */
export async function readGuestFsinfo(
  agent: GuestAgent,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<GuestFsinfoEntry[]> {
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
    throw unreadableWindowsOutput('guest-get-fsinfo', JSON.stringify(answer) ?? String(answer));
  return filesystems;
}
