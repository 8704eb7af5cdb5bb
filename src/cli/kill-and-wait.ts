import { setTimeout as sleep } from 'node:timers/promises';
import { processRuns } from '../lock/index.js';

/**
 * SIGTERM to `pid`, then waits up to `timeoutMs` for it to end (a zombie counts as ended);
 * SIGKILL if it has not. Nothing when it does not run.
 */
export async function killAndWait(pid: number, timeoutMs: number): Promise<void> {
  if (!processRuns(pid)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (processRuns(pid) && Date.now() < deadline) await sleep(100);
  if (processRuns(pid)) process.kill(pid, 'SIGKILL');
}
