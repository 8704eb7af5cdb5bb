import { isVoeError } from '../../errors/index.js';
import type { GuestAgent, GuestCommand, GuestCommandResult } from '../guest-agent.js';
import { GuestRunError } from '../guest-run-error.js';

/**
 * `command` through the agent; a failure to reach the agent becomes GUESTRUN_AGENT_FAILED, naming
 * the command and the transport's own code and message.
 */
export async function runGuestCommand(
  agent: GuestAgent,
  command: GuestCommand,
  signal?: AbortSignal,
): Promise<GuestCommandResult> {
  try {
    return await agent.exec(command, signal);
  } catch (error) {
    const said = isVoeError(error) ? `${error.code}: ${error.message}` : (error as Error).message;
    throw new GuestRunError(
      'GUESTRUN_AGENT_FAILED',
      `the guest agent (through ${agent.name}) could not run ${command.argv[0] ?? ''} in the guest: ${said}; check that the guest agent runs and allows guest-exec, then retry`,
      { cause: error, details: { argv: [...command.argv] } },
    );
  }
}
