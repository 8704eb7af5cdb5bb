import { readdirSync, readFileSync } from 'node:fs';

/**
 * Reads of procfs and sysfs, made in place rather than through libuv's thread pool: the kernel
 * answers them from its own state without waiting on any device, and each asynchronous read costs
 * several round trips through the event loop, which a process start (blkid) holds up.
 */

/** The text of a procfs/sysfs file, or null when it cannot be read (absent, gone, not ours). */
export function readKernelText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The names in a procfs/sysfs directory, or none when it cannot be read. */
export function listKernelDirectory(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}
