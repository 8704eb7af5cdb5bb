import { GuestGrowthError } from '../../fsresize/index.js';
import type { GuestAgent } from '../guest-agent.js';
import { runGuestCommand } from './run-guest-command.js';

/**
 * The standard output of a command that reads the guest's layout (lsblk, sfdisk --json, pvs...).
 * GUESTGROW_LAYOUT_UNREADABLE when it did not finish within timeoutMs, exited non-zero, or the
 * agent kept only the start of its output (a truncated JSON is no layout).
 */
export async function readCommandOutput(
  agent: GuestAgent,
  argv: readonly string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string> {
  const result = await runGuestCommand(agent, { argv, timeoutMs }, signal);
  const command = argv.join(' ');
  const unreadable = (why: string): GuestGrowthError =>
    new GuestGrowthError(
      'GUESTGROW_LAYOUT_UNREADABLE',
      `\`${command}\` in the guest ${why}`,
      "check that the guest agent can run the guest's tools (and that the guest is not overloaded), then retry",
      { argv: [...argv] },
    );
  if (result.timedOut) throw unreadable(`did not finish within ${Math.round(timeoutMs / 1000)} s`);
  if (result.exitCode !== 0)
    throw unreadable(
      `${result.exitCode === undefined ? `was ended by signal ${result.signal ?? '?'}` : `exited with ${result.exitCode}`}${result.stderr.trim() ? `: ${result.stderr.trim().slice(0, 300)}` : ''}`,
    );
  if (result.stdoutTruncated)
    throw unreadable('printed more than the guest agent keeps (its output was truncated)');
  return result.stdout;
}
