import { processRuns } from '../lock/index.js';
import { waitUntil } from '../wait/index.js';

/**
 * SIGTERM to `pid`, then waits up to `timeoutMs` for it to end (a zombie counts as ended);
 * SIGKILL if it has not. Nothing when it does not run.
 */
export async function killAndWait(pid: number, timeoutMs: number): Promise<void> {
  if (!processRuns(pid)) return;
  process.kill(pid, 'SIGTERM');
  await waitUntil(() => !processRuns(pid), { timeoutMs, intervalMs: 100 });
  if (processRuns(pid)) process.kill(pid, 'SIGKILL');
}
