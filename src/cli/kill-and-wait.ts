import { setTimeout as sleep } from 'node:timers/promises';
import { hasEnded, processAlive, readProcessStat } from '../lock/index.js';

/** Whether `pid` runs: a zombie not reaped yet (its parent gone, an init that reaps late) has ended. */
function running(pid: number): boolean {
  if (!processAlive(pid)) return false;
  const stat = readProcessStat(pid);
  return stat !== null && !hasEnded(stat);
}

/** SIGTERM to `pid`, then waits up to `timeoutMs` for it to end; SIGKILL if it has not. Nothing when it does not run. */
export async function killAndWait(pid: number, timeoutMs: number): Promise<void> {
  if (!running(pid)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (running(pid) && Date.now() < deadline) await sleep(100);
  if (running(pid)) process.kill(pid, 'SIGKILL');
}
