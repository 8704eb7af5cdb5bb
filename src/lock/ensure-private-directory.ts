import { lstat, mkdir } from 'node:fs/promises';

/**
 * Creates `directory` (and missing parents) readable and writable by its owner only, whatever the
 * umask, and checks that an existing one is a real directory (not a symbolic link) owned by this
 * process's user and writable by nobody else. Resolves with undefined when it is, else with why
 * not: another user able to write there could remove a held lock file, plant one that never goes
 * stale, or plant symbolic links where lock files are written.
 */
export async function ensurePrivateDirectory(directory: string): Promise<string | undefined> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const info = await lstat(directory);
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (!info.isDirectory()) return 'not a directory';
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) return `owned by uid ${info.uid}, not ${uid}`;
  if ((info.mode & 0o022) !== 0) return `writable by ${(info.mode & 0o020) !== 0 ? 'its group' : 'other users'} (mode ${(info.mode & 0o7777).toString(8).padStart(4, '0')})`;
  return undefined;
}
