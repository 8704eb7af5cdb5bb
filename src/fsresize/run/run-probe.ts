import { execFile, type ChildProcess, type ExecFileException } from 'node:child_process';
import type { CommandResult } from '../model/command-runner.js';
import { notStartedError, toolErrors } from './tool-errors.js';

export interface ProbeOptions {
  env: { PATH: string; LC_ALL: string };
  timeoutMs: number;
  /**
   * Still running this long after its timeout's SIGTERM: SIGKILL, and after as long again the
   * call gives up waiting for it. Null: neither (the timers would not hold so long).
   */
  killGraceMs: number | null;
  onSpawn?: ((pid: number) => void) | undefined;
}

/**
 * Runs a probe (a tool that changes nothing) with execFile: its output and exit code as a result,
 * stopped at its timeout (SIGTERM, then SIGKILL), and left behind when even that does not end it,
 * so the caller's timeout holds (execFile alone waits for its exit). A missing or non-executable
 * tool, a timeout and an abnormal end are typed errors.
 */
export function runProbe(
  command: string,
  args: readonly string[],
  options: ProbeOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const timers: NodeJS.Timeout[] = [];
    const child = execFile(
      command,
      [...args],
      {
        env: options.env,
        timeout: options.timeoutMs,
        killSignal: 'SIGTERM',
        maxBuffer: 32 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error: ExecFileException | null, stdout: string, stderr: string) => {
        timers.forEach(clearTimeout);
        try {
          resolve(probeResult(command, args, options, error, stdout, stderr));
        } catch (failure) {
          reject(failure);
        }
      },
    );
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    if (options.killGraceMs !== null)
      timers.push(
        ...stopLater(child, command, args, options.timeoutMs, options.killGraceMs, reject),
      );
  });
}

/** How execFile's answer reads: any exit code is a result; anything else throws a typed error. */
function probeResult(
  command: string,
  args: readonly string[],
  { env, timeoutMs }: ProbeOptions,
  error: ExecFileException | null,
  stdout: string,
  stderr: string,
): CommandResult {
  if (!error) return { exitCode: 0, stdout, stderr };
  // Stopped by us for its timeout: a tool that catches SIGTERM and exits with a code (143)
  // was still stopped, not a failure of its own.
  const stopped = error.killed === true && error.code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
  if (typeof error.code === 'number' && !stopped) return { exitCode: error.code, stdout, stderr };
  const tool = {
    tool: command,
    args: [...args],
    exitCode: typeof error.code === 'number' ? error.code : null,
    signal: error.signal ?? null,
    stderr,
  };
  const notStarted = notStartedError(command, env.PATH, error, tool);
  if (notStarted) throw notStarted;
  if (stopped) throw toolErrors.timedOut(command, args, timeoutMs, stderr, error, tool);
  throw toolErrors.abnormal(
    command,
    args,
    String(error.signal ?? error.code ?? error.message),
    stderr,
    error,
    tool,
  );
}

/**
 * A probe that ignores SIGTERM is killed `killGraceMs` after its timeout, and one that cannot be
 * is left behind `killGraceMs` later still (FSRESIZE_TIMEOUT through `reject`).
 */
function stopLater(
  child: ChildProcess,
  command: string,
  args: readonly string[],
  timeoutMs: number,
  killGraceMs: number,
  reject: (error: unknown) => void,
): NodeJS.Timeout[] {
  const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs + killGraceMs);
  const leave = setTimeout(
    () => {
      reject(
        toolErrors.timedOut(
          command,
          args,
          timeoutMs,
          '',
          undefined,
          {
            tool: command,
            args: [...args],
            exitCode: null,
            signal: child.signalCode,
            stderr: '',
          },
          `did not stop within ${2 * killGraceMs} ms of SIGTERM and SIGKILL; it was left running`,
        ),
      );
      // Left behind for good: its process and pipes must not keep voe (e.g. a FlexVolume call,
      // which kubelet waits for) from exiting once it has answered.
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    },
    timeoutMs + 2 * killGraceMs,
  );
  return [kill, leave];
}
