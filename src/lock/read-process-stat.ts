import { readFileSync } from 'node:fs';

/** What /proc/<pid>/stat says of a process: what the lock needs to judge whether it still runs. */
export interface ProcessStat {
  /** Field 3: R, S, D, T, t, Z (a zombie: ended, not reaped yet), X (dead), I... */
  state: string;
  /** Field 22: when it started, in clock ticks since boot; null when unreadable. */
  startTime: number | null;
  /** Field 4: its parent's pid (1, or a subreaper's, once its parent has died); null when unreadable. */
  parentPid: number | null;
}

/** /proc/<pid>/stat of `pid`, or null when /proc does not say (no such process, /proc not mounted or hidden). */
export function readProcessStat(pid: number): ProcessStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[19]);
  const parent = Number(fields[1]);
  return {
    state: fields[0] ?? '',
    startTime: Number.isSafeInteger(start) ? start : null,
    parentPid: Number.isSafeInteger(parent) ? parent : null,
  };
}

/** Whether the process has ended (a zombie not reaped yet, or dead): it holds nothing any more. */
export function hasEnded(stat: ProcessStat): boolean {
  return stat.state === 'Z' || stat.state === 'X' || stat.state === 'x';
}
