import type { CommandResult, CommandRunner, RunOptions } from '../model/command-runner.js';
import { FsResizeError } from '../model/fsresize-error.js';
import { runDetached } from './run-detached.js';
import { runProbe } from './run-probe.js';

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
        const started = bothCalled(runOptions.critical.onStart, runOptions.onSpawn);
        return runDetached(command, args, {
          env,
          timeoutMs,
          ...(started ? { onStart: started } : {}),
        });
      }
      return runProbe(command, args, {
        env,
        timeoutMs,
        killGraceMs: timeoutMs + 2 * killGraceMs <= MAX_TIMEOUT_MS ? killGraceMs : null,
        onSpawn: runOptions.onSpawn,
      });
    },
  };
}

/** One callback calling both of a critical tool's (critical.onStart, onSpawn), or the one given. */
function bothCalled(
  onStart: ((pid: number) => void) | undefined,
  onSpawn: ((pid: number) => void) | undefined,
): ((pid: number) => void) | undefined {
  return onStart && onSpawn
    ? (pid: number) => {
        onSpawn(pid);
        onStart(pid);
      }
    : (onStart ?? onSpawn);
}
