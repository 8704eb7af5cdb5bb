import { parseLockContent, type LockProcess } from './lock-content.js';
import { processAlive } from './process-alive.js';
import { hasEnded, readProcessStat } from './read-process-stat.js';

/**
 * Whether a process named in a lock file is alive: its pid exists, it has not ended (a zombie
 * that nobody reaps, e.g. a grow tool orphaned in a container whose init does not reap, still has
 * its pid and start time but holds nothing) and, when the file recorded its start time, the
 * process with that pid started then (not a later one that reused the pid; where /proc does not
 * say, the pid alone decides).
 */
export function alive(process: LockProcess): boolean {
  if (!processAlive(process.pid)) return false;
  const stat = readProcessStat(process.pid);
  if (stat === null) return true;
  if (hasEnded(stat)) return false;
  return process.start === undefined || stat.startTime === null || stat.startTime === process.start;
}

/**
 * Whether the lock file `holder` belongs to a holder that is gone: neither the process that took
 * the lock nor the helper it recorded (a grow tool it started) still runs. Only judged inside
 * our own PID namespace: a pid from another namespace (a voe in a container without hostPID, or
 * on the host while we are in one) says nothing about liveness here, so such a lock is waited
 * for, never taken over. A lock without a namespace (older voe) is judged.
 */
export function holderDead(holder: string, namespace: string): boolean {
  const content = parseLockContent(holder);
  if (content === null) return false;
  if (content.namespace !== undefined && content.namespace !== namespace) return false;
  return !alive(content.holder) && !(content.helper !== undefined && alive(content.helper));
}
