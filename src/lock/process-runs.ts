import { processAlive } from './process-alive.js';
import { hasEnded, readProcessStat } from './read-process-stat.js';

/**
 * Whether `pid` still runs: it exists and has not ended (a zombie not reaped yet, e.g. orphaned
 * under an init that reaps late, holds nothing). Where /proc does not say, existing is enough.
 */
export function processRuns(pid: number): boolean {
  if (!processAlive(pid)) return false;
  const stat = readProcessStat(pid);
  return stat === null || !hasEnded(stat);
}
