/** What a finished command produced. A non-zero `exitCode` is a result, not an error. */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /**
   * Fail with FSRESIZE_TIMEOUT after this many milliseconds: a probe is killed then; a critical
   * command is not (see critical).
   */
  timeoutMs?: number;
  /**
   * The command changes the filesystem (a grow or check tool) and must never be stopped midway,
   * neither by what happens to voe nor by its timeout (a resize2fs killed midway leaves a
   * damaged filesystem): it runs in a session of its own (a terminal's Ctrl-C or hangup reaches
   * voe only) and writes its output to files, not pipes (it does not die of SIGPIPE when voe is
   * killed). `onStart` gets its pid, synchronously, as soon as it runs. At its timeout voe stops
   * waiting (FSRESIZE_TIMEOUT, details.pid) and leaves it running.
   */
  critical?: { onStart?: (pid: number) => void };
  /**
   * Gets the command's pid, synchronously, as soon as it is spawned (critical or not): e.g. so that
   * the look for other programs using a device leaves this operation's own probe alone (reading a
   * process's descriptors while it starts delays its start).
   */
  onSpawn?: (pid: number) => void;
}

/**
 * The port through which the core runs every external tool: a program and an argument
 * array, never a shell string. Rejects with FsResizeError FSRESIZE_TOOL_MISSING,
 * FSRESIZE_PERMISSION_DENIED (the program could not be executed) or FSRESIZE_TIMEOUT.
 */
export interface CommandRunner {
  run(command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;
}
