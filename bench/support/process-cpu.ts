/** CPU time of processes from /proc (Linux). */
import { readdir, readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** /proc/<pid>/stat's command name, and its fields after the name (which may hold spaces). */
async function readStat(pid: number): Promise<{ name: string; fields: string[] }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const end = stat.lastIndexOf(')');
  return { name: stat.slice(stat.indexOf('(') + 1, end), fields: stat.slice(end + 2).split(' ') };
}

/** User plus system CPU time process `pid` used so far, in seconds. */
export async function processCpuSeconds(pid: number): Promise<number> {
  const { fields } = await readStat(pid);
  // utime and stime: fields 14 and 15 of the stat line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The pids of the processes whose parent is `parent` and whose command name is `name`. */
export async function childrenNamed(parent: number, name: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry)).map(Number);
  const found: number[] = [];
  for (const pid of pids) {
    try {
      const stat = await readStat(pid);
      if (stat.name === name && Number(stat.fields[1]) === parent) found.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
