/** A process's resident memory from /proc/<pid>/status, in MiB. */
import { readFile } from 'node:fs/promises';

/** VmRSS (now) and VmHWM (the largest since it started) of process `pid`, in MiB. */
export async function processRss(pid: number): Promise<{ rssMiB: number; peakMiB: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string): number =>
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 'NaN') / 1024;
  return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
}
