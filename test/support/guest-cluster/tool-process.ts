import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startProcess, type ManagedProcess } from '../../../src/controlplane/managed-process.js';

/**
 * A program of the guest cluster (kube-controller-manager, a sidecar, `voe csi`) started with an
 * argument array, its output in `<dir>/<name>.log`, killed if the test process exits.
 */
export function startTool(
  dir: string,
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): ManagedProcess {
  return startProcess({ name, command, args, logFile: join(dir, `${name}.log`), env });
}

/** The last `lines` lines of a tool's log, for a failed test's message. */
export async function logTail(process: ManagedProcess, lines = 40): Promise<string> {
  const text = await readFile(process.logFile, 'utf8').catch(() => '');
  return text.split('\n').slice(-lines).join('\n');
}

/** How soon a container that exited is started again (kubelet's restartPolicy Always, without its back-off). */
const RESTART_DELAY_MS = 1_000;

/**
 * A sidecar run as a pod's container: started again whenever it exits until `stop()` (a CSI
 * sidecar exits when it loses its driver's socket, and kubelet restarts it). `current()` is the
 * process now running.
 */
export function superviseTool(
  dir: string,
  name: string,
  command: string,
  args: string[],
): { current(): ManagedProcess; stop(graceMs?: number): Promise<void> } {
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let current = startTool(dir, name, command, args);
  const watch = (p: ManagedProcess): void => {
    void p.exited.then(() => {
      if (stopping) return;
      timer = setTimeout(() => {
        if (stopping) return;
        current = startTool(dir, name, command, args);
        watch(current);
      }, RESTART_DELAY_MS);
    });
  };
  watch(current);
  return {
    current: () => current,
    async stop(graceMs = 5_000) {
      stopping = true;
      clearTimeout(timer);
      await current.stop(graceMs);
    },
  };
}
