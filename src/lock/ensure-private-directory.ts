import { makeDirectories } from '../files/index.js';
import { lstat } from 'node:fs/promises';

/** Why a directory is not private: what is wrong, and the words for it. */
export interface DirectoryProblem {
  kind: 'link' | 'not-directory' | 'owner' | 'writable';
  why: string;
}

/**
 * Creates `directory` (and missing parents) readable and writable by its owner only, whatever the
 * umask, and checks that an existing one is a real directory (not a symbolic link) owned by this
 * process's user and writable by nobody else. Resolves with undefined when it is, else with the
 * problem: another user able to write there could remove a held lock file, plant one that never
 * goes stale, or plant symbolic links where lock files are written.
 */
export async function ensurePrivateDirectory(
  directory: string,
): Promise<DirectoryProblem | undefined> {
  await makeDirectories(directory, 0o700);
  const info = await lstat(directory);
  if (info.isSymbolicLink()) return { kind: 'link', why: 'a symbolic link' };
  if (!info.isDirectory()) return { kind: 'not-directory', why: 'not a directory' };
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid)
    return { kind: 'owner', why: `owned by uid ${info.uid}, not ${uid}` };
  if ((info.mode & 0o022) !== 0) {
    const who = [
      (info.mode & 0o020) !== 0 ? 'its group' : '',
      (info.mode & 0o002) !== 0 ? 'other users' : '',
    ]
      .filter(Boolean)
      .join(' and ');
    return {
      kind: 'writable',
      why: `writable by ${who} (mode ${(info.mode & 0o7777).toString(8).padStart(4, '0')})`,
    };
  }
  return undefined;
}
