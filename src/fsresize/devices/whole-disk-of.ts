import { readKernelText } from './kernel-files.js';

/** The whole disk of a partition ("major:minor" from the parent's sysfs directory), else null. */
export function wholeDiskOf(sysfs: string, majorMinor: string): string | null {
  const directory = `${sysfs}/dev/block/${majorMinor}`;
  if (readKernelText(`${directory}/partition`) === null) return null;
  const parent = readKernelText(`${directory}/../dev`)?.trim() ?? null;
  return parent !== null && /^\d+:\d+$/.test(parent) ? parent : null;
}
