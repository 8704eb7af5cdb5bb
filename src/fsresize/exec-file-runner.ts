import { execFile, type ExecFileException } from 'node:child_process';
import type { CommandResult, CommandRunner, RunOptions } from './command-runner.js';
import { FsResizeError } from './fsresize-error.js';
import { runDetached } from './run-detached.js';
import { notStartedError, toolErrors } from './tool-errors.js';

/** Where node tools live on Debian, RHEL, SUSE and in most CSI images (sbin first). */
export const DEFAULT_SEARCH_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The longest timeout Node's timers keep (2^31-1 ms, about 24.8 days). */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export interface ExecFileRunnerOptions {
  /** PATH the tools are looked up in; the environment is otherwise empty apart from LC_ALL=C. */
  searchPath?: string;
  /** Used when a call gives no timeout. */
  defaultTimeoutMs?: number;
  /**
   * A probe still running this long after its timeout's SIGTERM gets SIGKILL, and the call gives
   * up waiting for it after as long again (a tool stuck in the kernel, or output held open by a
   * process it started); default 5 s.
   */
  killGraceMs?: number;
}

/** Default for ExecFileRunnerOptions.killGraceMs. */
export const DEFAULT_KILL_GRACE_MS = 5_000;

/**
 * The production CommandRunner: child_process.execFile with an argument array, a fixed
 * environment (LC_ALL=C so tool output parses the same everywhere) and a timeout. A `critical`
 * command (a grow or check tool) runs through runDetached instead, so that it never dies with voe.
 */
export function createExecFileRunner(options: ExecFileRunnerOptions = {}): CommandRunner {
  const env = { PATH: options.searchPath ?? DEFAULT_SEARCH_PATH, LC_ALL: 'C' };
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  return {
    run(
      command: string,
      args: readonly string[],
      runOptions: RunOptions = {},
    ): Promise<CommandResult> {
      const timeoutMs = Math.ceil(runOptions.timeoutMs ?? defaultTimeoutMs);
      // Node timers turn anything above 2^31-1 ms into 1 ms: a tool would be stopped as it starts.
      if (!(timeoutMs >= 1 && timeoutMs <= MAX_TIMEOUT_MS)) {
        return Promise.reject(
          new FsResizeError(
            'FSRESIZE_INVALID_ARGUMENT',
            `the timeout for ${command} must be from 1 to ${MAX_TIMEOUT_MS} ms, got ${String(runOptions.timeoutMs ?? defaultTimeoutMs)}; nothing was run`,
          ),
        );
      }
      if (runOptions.critical) {
        const { onStart } = runOptions.critical;
        const { onSpawn } = runOptions;
        const started =
          onStart && onSpawn
            ? (pid: number) => {
                onSpawn(pid);
                onStart(pid);
              }
            : (onStart ?? onSpawn);
        return runDetached(command, args, {
          env,
          timeoutMs,
          ...(started ? { onStart: started } : {}),
        });
      }
      return new Promise((resolve, reject) => {
        // A probe changes nothing: one that ignores SIGTERM is killed, and one that cannot be is
        // left behind, so the caller's timeout holds (execFile alone waits for its exit).
        const timers: NodeJS.Timeout[] = [];
        const child = execFile(
          command,
          [...args],
          {
            env,
            timeout: timeoutMs,
            killSignal: 'SIGTERM',
            maxBuffer: 32 * 1024 * 1024,
            encoding: 'utf8',
          },
          (error: ExecFileException | null, stdout: string, stderr: string) => {
            timers.forEach(clearTimeout);
            if (!error) return resolve({ exitCode: 0, stdout, stderr });
            // Stopped by us for its timeout: a tool that catches SIGTERM and exits with a code (143)
            // was still stopped, not a failure of its own.
            const stopped =
              error.killed === true && error.code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
            if (typeof error.code === 'number' && !stopped)
              return resolve({ exitCode: error.code, stdout, stderr });
            const tool = {
              tool: command,
              args: [...args],
              exitCode: typeof error.code === 'number' ? error.code : null,
              signal: error.signal ?? null,
              stderr,
            };
            const notStarted = notStartedError(command, env.PATH, error, tool);
            if (notStarted) return reject(notStarted);
            if (stopped)
              return reject(toolErrors.timedOut(command, args, timeoutMs, stderr, error, tool));
            return reject(
              toolErrors.abnormal(
                command,
                args,
                String(error.signal ?? error.code ?? error.message),
                stderr,
                error,
                tool,
              ),
            );
          },
        );
        if (child.pid !== undefined) runOptions.onSpawn?.(child.pid);
        if (timeoutMs + 2 * killGraceMs <= MAX_TIMEOUT_MS) {
          timers.push(setTimeout(() => child.kill('SIGKILL'), timeoutMs + killGraceMs));
          timers.push(
            setTimeout(
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
            ),
          );
        }
      });
    },
  };
}
