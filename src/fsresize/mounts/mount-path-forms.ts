import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * The forms a mount path given by a caller (operator's --mount, kubelet's mount path) may take
 * in mountinfo, which lists canonical absolute paths: resolved (no trailing slash, no `.`/`..`,
 * no doubled slashes) and, when it exists, with every symlink resolved.
 */
export async function mountPathForms(path: string): Promise<string[]> {
  const resolved = resolve(path);
  const real = await realpath(resolved).catch(() => resolved);
  return real === resolved ? [resolved] : [resolved, real];
}
