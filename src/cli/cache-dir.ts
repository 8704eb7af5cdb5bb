import { homedir } from 'node:os';
import { join } from 'node:path';

/** Build cache outside any clone: $VOE_CACHE_DIR (an empty value counts as unset), else ~/.cache/voe. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.VOE_CACHE_DIR || join(env.HOME || homedir(), '.cache', 'voe');
}
