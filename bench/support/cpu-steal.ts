import { readFile } from 'node:fs/promises';

/** The machine's CPU time counters from /proc/stat (all CPUs, clock ticks): steal and the total. */
export interface CpuTimes {
  steal: number;
  total: number;
}

/**
 * Reads the first line of /proc/stat ("cpu user nice system idle iowait irq softirq steal ..."):
 * steal is the time the hypervisor ran something else while this VM's vCPUs wanted to run.
 * On a shared host it disturbs a measurement more than anything in the measured code can; the
 * benchmarks print it per round so a disturbed round can be told from a slow one.
 */
export async function readCpuTimes(): Promise<CpuTimes> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
  return { steal: values[7] ?? 0, total: values.reduce((sum, value) => sum + value, 0) };
}

/** The share (0..1) of all CPU time between two readings that the host stole. */
export function stealShare(before: CpuTimes, after: CpuTimes): number {
  const total = after.total - before.total;
  return total > 0 ? (after.steal - before.steal) / total : 0;
}

/** A steal share as a percentage with one decimal ("3.2 %"). */
export const percent = (share: number): string => `${(share * 100).toFixed(1)} %`;
