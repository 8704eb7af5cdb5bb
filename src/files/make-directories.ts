import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p`: creates `path` and its missing parents (each with `mode` when given, as
 * `mkdir(path, { recursive: true, mode })` would), one level at a time. Node 20's recursive mkdir
 * loops for ever, at full CPU, where the kernel answers ENOENT to creating a directory in one that
 * exists (e.g. under /proc); here that ENOENT is the error. A component that exists but is not a
 * directory is ENOTDIR. Errors carry the errno `code` of the failed call.
 */
export async function makeDirectories(path: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    const info = await stat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (info !== null) {
      if (!info.isDirectory())
        throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), {
          code: 'ENOTDIR',
          path: current,
          syscall: 'mkdir',
        });
      break;
    }
    missing.push(current);
    if (dirname(current) === current) break;
  }
  for (const directory of missing.reverse()) {
    await mkdir(directory, mode === undefined ? {} : { mode }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error; // made meanwhile by another process: fine
      },
    );
  }
}
