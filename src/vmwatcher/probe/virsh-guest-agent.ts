import type { GuestAgent, GuestCommand, GuestCommandResult } from '../../guest-grow/guest-agent.js';
import { waitUntil } from '../../wait/index.js';
import { GuestProbeError } from './guest-probe-error.js';
import {
  isGuestExecRefused,
  parseAgentReturn,
  parseExecPid,
  parseExecStatus,
  type ExecStatus,
} from './virsh-output.js';
import type { VirshHost, VirshTransport } from './virsh-transport.js';

export interface VirshGuestAgentOptions {
  /** How often guest-exec-status is asked until the command exited; default 50 ms. */
  pollMs?: number;
}

/** The guest-exec request of a command: its program, arguments, standard input (base64), output captured. */
export function guestExecRequest(command: Pick<GuestCommand, 'argv' | 'stdin'>): object {
  const [path, ...arg] = command.argv;
  return {
    execute: 'guest-exec',
    arguments: {
      path,
      arg,
      ...(command.stdin === undefined
        ? {}
        : { 'input-data': Buffer.from(command.stdin, 'utf8').toString('base64') }),
      'capture-output': true,
    },
  };
}

/**
 * The GuestAgent of one domain, through `virsh qemu-agent-command` on a VirshTransport (the guest
 * probe's: pods/exec into virt-launcher, or a local virsh). `exec` sends guest-exec (QGA
 * qga/commands.c qmp_guest_exec: path, arg[], input-data in base64, capture-output), then asks
 * guest-exec-status (at once, then every pollMs) until the process exited or the command's
 * timeoutMs ran out or `signal` aborted (timedOut; the guest's process is not killed, as the
 * agent has no command for it). Each virsh call is bounded by libvirt's own `--timeout` too. Rejects with
 * PROBE_GUEST_EXEC_REFUSED when the agent refuses guest-exec, PROBE_OUTPUT_UNREADABLE for an answer
 * that is not the agent's JSON, PROBE_VIRSH_FAILED or PROBE_EXEC_FORBIDDEN from the transport.
 */
export function virshGuestAgent(
  transport: VirshTransport,
  host: VirshHost,
  domain: string,
  options: VirshGuestAgentOptions = {},
): GuestAgent {
  const ask = async (request: object, timeoutMs: number, signal: AbortSignal): Promise<string> => {
    const seconds = String(Math.max(1, Math.ceil(Math.min(timeoutMs, 3_600_000) / 1000)));
    try {
      return await transport.virsh(
        host,
        ['qemu-agent-command', '--timeout', seconds, domain, JSON.stringify(request)],
        signal,
      );
    } catch (error) {
      if (error instanceof GuestProbeError && isGuestExecRefused(error.message))
        throw new GuestProbeError('PROBE_GUEST_EXEC_REFUSED', error.message, { cause: error });
      throw error;
    }
  };
  return {
    name: transport.name,
    async exec(command: GuestCommand, outer?: AbortSignal): Promise<GuestCommandResult> {
      const timeout = AbortSignal.timeout(command.timeoutMs);
      const signal = outer ? AbortSignal.any([timeout, outer]) : timeout;
      const timedOut = (): GuestCommandResult => ({
        exitCode: undefined,
        stdout: '',
        stderr: '',
        stdoutTruncated: false,
        stderrTruncated: false,
        timedOut: true,
      });
      try {
        const pid = parseExecPid(await ask(guestExecRequest(command), command.timeoutMs, signal));
        const status = (): Promise<ExecStatus> =>
          ask({ execute: 'guest-exec-status', arguments: { pid } }, command.timeoutMs, signal).then(
            parseExecStatus,
          );
        let last = await status();
        const outcome = await waitUntil(
          async () => {
            if (last.exited) return true;
            last = await status();
            return last.exited;
          },
          { timeoutMs: Infinity, intervalMs: options.pollMs ?? 50, signal },
        );
        if (outcome !== 'ok') return timedOut();
        return {
          exitCode: last.exitCode,
          signal: last.signal,
          stdout: last.stdout,
          stderr: last.stderr,
          stdoutTruncated: last.stdoutTruncated,
          stderrTruncated: last.stderrTruncated,
          timedOut: false,
        };
      } catch (error) {
        // The transport's own PROBE_TIMEOUT when a virsh call was cut short by the signal.
        if (signal.aborted) return timedOut();
        throw error;
      }
    },
    async fsinfo(timeoutMs: number, outer?: AbortSignal): Promise<unknown> {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = outer ? AbortSignal.any([timeout, outer]) : timeout;
      return parseAgentReturn(
        await ask({ execute: 'guest-get-fsinfo' }, timeoutMs, signal),
        'guest-get-fsinfo',
      );
    },
  };
}
