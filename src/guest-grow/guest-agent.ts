/** One command to run in a guest: an argument list, never a shell string. */
export interface GuestCommand {
  /** The program (found on the guest agent's PATH) and its arguments. */
  argv: readonly string[];
  /** What the command reads on its standard input, when it reads one (sfdisk's script). */
  stdin?: string | undefined;
  /** How long the command may take, the agent's calls included. */
  timeoutMs: number;
}

/** How a command ended in the guest. */
export interface GuestCommandResult {
  /** The exit code; undefined when it did not exit (timedOut) or was killed by a signal. */
  exitCode: number | undefined;
  /** The signal that ended it, when one did. */
  signal?: number | undefined;
  /** Its standard output and error, decoded as UTF-8. */
  stdout: string;
  stderr: string;
  /** The agent kept only the start of the output (QGA: out-truncated, err-truncated). */
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** The command had not exited when timeoutMs ran out (it may still run in the guest). */
  timedOut: boolean;
}

/**
 * The port through which voe runs a guest's own tools: the QEMU guest agent's guest-exec and
 * guest-exec-status (the production adapter is virshGuestAgent in src/vmwatcher/probe: `virsh
 * qemu-agent-command`, through pods/exec into virt-launcher or a local virsh), and its
 * guest-get-fsinfo. `exec` resolves for every command that ran, whatever its exit code, and for
 * a timeout (timedOut); it rejects only when the agent could not be asked or answered nonsense.
 */
export interface GuestAgent {
  /** For messages: how the agent is reached ("pods/exec", "local"). */
  readonly name: string;
  exec(command: GuestCommand, signal?: AbortSignal): Promise<GuestCommandResult>;
  /** guest-get-fsinfo's `return` (parseGuestFsinfo reads it). */
  fsinfo(timeoutMs: number, signal?: AbortSignal): Promise<unknown>;
}
