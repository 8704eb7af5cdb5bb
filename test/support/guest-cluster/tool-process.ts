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
