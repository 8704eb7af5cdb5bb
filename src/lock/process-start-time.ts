import { readProcessStat } from './read-process-stat.js';

/**
 * When the process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat), or
 * null when /proc does not say (no such process, /proc not mounted or hidden). Together with the
 * pid it names one process: a pid reused by a later process has a later start time.
 */
export function processStartTime(pid: number): number | null {
  return readProcessStat(pid)?.startTime ?? null;
}
