import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Build cache outside any clone: $VOE_CACHE_DIR (an empty value counts as unset; a relative one is read from the current directory), else ~/.cache/voe. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.VOE_CACHE_DIR || join(env.HOME || homedir(), '.cache', 'voe'));
}
