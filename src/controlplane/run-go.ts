import { spawn } from 'node:child_process';
import { ControlPlaneError } from './control-plane-error.js';
import { describeGoExit, type GoExit } from './go-exit.js';
import { goModuleDir } from './go-module-dir.js';
import { killAtExit } from './managed-process.js';

export interface RunGoOptions {
  /** The build's environment (goBuildEnv). */
  env: NodeJS.ProcessEnv;
  /** What is built, for messages ("etcd v3.5.21"). */
  label: string;
  onProgress?: (line: string) => void;
  /** Called with go's pid once it runs (to record it in the build lock). */
  onStarted?: (pid: number) => void;
  /** Where go runs: the control plane's Go module unless told. */
  cwd?: string;
}

/** Sends `signal` to the process group `pid` leads; false when there is none any more. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `go ARGS` in the Go module's directory (or `options.cwd`); resolves when it exits 0. go runs in a process group
 * of its own, killed whole (go, and the compile and link processes it started) when this process
 * exits or is stopped, so an interrupted voe never leaves a build running on.
 */
export function runGo(args: string[], options: RunGoOptions): Promise<void> {
  const { label } = options;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, {
      cwd: options.cwd ?? goModuleDir(),
      env: options.env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    const forget =
      child.pid === undefined
        ? () => undefined
        : killAtExit(() => {
            signalGroup(child.pid!, 'SIGKILL');
          });
    if (child.pid !== undefined) options.onStarted?.(child.pid);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-8000);
    });
    const ticker = setInterval(() => {
      options.onProgress?.(
        `  still building ${label} (${Math.round((Date.now() - started) / 1000)} s)`,
      );
    }, 30_000);
    child.on('error', (error) => {
      clearInterval(ticker);
      forget();
      const code =
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'CONTROLPLANE_GO_MISSING'
          : 'CONTROLPLANE_BUILD_FAILED';
      reject(
        new ControlPlaneError(
          code,
          `cannot run go to build ${label}: ${error.message}. Install Go >= 1.24 or point TEST_ASSET_KUBE_APISERVER/TEST_ASSET_ETCD (or KUBEBUILDER_ASSETS) at existing binaries.`,
          { cause: error },
        ),
      );
    });
    child.on('close', (code, signal) => {
      clearInterval(ticker);
      // A compile or link process go left when it was killed alone (e.g. by the out-of-memory killer).
      if (code !== 0 && child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      forget();
      if (code === 0) {
        options.onProgress?.(`  built ${label} in ${Math.round((Date.now() - started) / 1000)} s`);
        resolve();
      } else {
        const exit: GoExit = { code, signal, stderr };
        reject(
          new ControlPlaneError(
            'CONTROLPLANE_BUILD_FAILED',
            `go build of ${label} ${describeGoExit(exit)}${stderr.trim() ? `:\n${stderr.trim()}` : ''}`,
            { details: { stderr, goExit: exit } },
          ),
        );
      }
    });
  });
}
