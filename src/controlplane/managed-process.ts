import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { removeRegisteredDirs } from '../exit/index.js';
import { once } from 'node:events';
import { ControlPlaneError } from './control-plane-error.js';

/** How to kill each process we started and still run (a child, or a whole process group). */
const running = new Set<() => void>();
let exitHookInstalled = false;

/**
 * Kills every process we started (SIGKILL), then removes the temporary directories registered to
 * go at exit. For a command whose graceful stop is cut short (a second Ctrl-C while stopping).
 */
export function killManagedProcesses(): void {
  killAllAndRemoveDirs();
}

/** Kills every process we started, then removes the temporary directories registered to go at exit. */
function killAllAndRemoveDirs(): void {
  for (const kill of running) kill();
  removeRegisteredDirs();
}

/**
 * Calls `kill` (it must not throw) when this process exits, is stopped by a signal nobody else
 * handles, or calls killManagedProcesses: for a process started otherwise than by startProcess
 * (e.g. `go build`'s process group). Returns the undo, for once that process has ended.
 */
export function killAtExit(kill: () => void): () => void {
  installExitHook();
  running.add(kill);
  return () => {
    running.delete(kill);
  };
}

/** Kills every process we started when this process exits, even on an unhandled error or a signal. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killAllAndRemoveDirs);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      // Someone else (e.g. `voe cluster run`) handles this signal and stops us gracefully.
      if (process.listenerCount(signal) > 0) return;
      killAllAndRemoveDirs();
      // Re-raise so the default behaviour (exit with 128+n) still happens.
      process.kill(process.pid, signal);
    });
  }
}

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves when the process exits (with its exit code or signal). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  isRunning(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`. Resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartProcessOptions {
  name: string;
  command: string;
  args: string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** A detached process outlives us (used by `voe cluster start`); it is not killed on exit. */
  detached?: boolean;
}

/** Starts a binary with an argument array (no shell), stdout+stderr appended to `logFile`. */
export function startProcess(options: StartProcessOptions): ManagedProcess {
  const fd = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env ?? {},
      stdio: ['ignore', fd, fd],
      detached: options.detached ?? false,
    });
  } finally {
    closeSync(fd);
  }
  // At once: a binary that cannot be started reports it as an 'error' event after this returns,
  // which without a listener would crash the process instead of the error below.
  child.on('error', () => undefined);
  if (child.pid === undefined) {
    throw new ControlPlaneError(
      'CONTROLPLANE_BINARY_MISSING',
      `cannot start ${options.name} (${options.command})`,
    );
  }
  let forget = (): void => undefined;
  if (options.detached) {
    child.unref();
  } else {
    forget = killAtExit(() => {
      child.kill('SIGKILL');
    });
  }
  const exited = (async () => {
    if (child.exitCode !== null || child.signalCode !== null)
      return { code: child.exitCode, signal: child.signalCode };
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    forget();
    return { code, signal };
  })();
  exited.catch(() => undefined);
  let alive = true;
  void exited.then(() => {
    alive = false;
  });
  const pid = child.pid;
  return {
    name: options.name,
    pid,
    logFile: options.logFile,
    exited,
    isRunning: () => alive,
    async stop(graceMs = 10_000) {
      if (!alive) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
