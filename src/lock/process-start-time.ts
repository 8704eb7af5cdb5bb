import { readFileSync } from 'node:fs';

/**
 * When the process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat), or
 * null when /proc does not say (no such process, /proc not mounted or hidden). Together with the
 * pid it names one process: a pid reused by a later process has a later start time.
 */
export function processStartTime(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[19]);
  return Number.isSafeInteger(start) ? start : null;
}
