import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Removes what interrupted builds left in `dir`: every entry `isLeftover` names (half-written or
 * never-renamed outputs, module copies, go's work directories). Only under the build lock, which
 * a build (and its go, recorded in the lock as its helper) holds as long as it runs.
 */
export async function removeBuildLeftovers(
  dir: string,
  isLeftover: (name: string) => boolean,
): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names.filter(isLeftover).map((name) => rm(join(dir, name), { recursive: true, force: true })),
  );
}
