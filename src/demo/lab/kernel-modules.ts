import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { VmLabError } from './vm-lab-error.js';

/** A module's name as the kernel spells it (dashes and underscores are the same). */
export function moduleName(fileOrName: string): string {
  return basename(fileOrName, '.ko').replaceAll('-', '_');
}

/** The `depends=` of a .ko's .modinfo section (comma-separated module names). Pure. */
export function moduleDepends(ko: Buffer): string[] {
  const at = ko.indexOf('\0depends=');
  if (at === -1) return [];
  const start = at + '\0depends='.length;
  const end = ko.indexOf(0, start);
  return ko
    .subarray(start, end === -1 ? undefined : end)
    .toString('utf8')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
    .map(moduleName);
}

/** Every .ko below `dir`, by module name. */
async function indexModules(dir: string): Promise<Map<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const index = new Map<string, string>();
  for (const entry of entries)
    if (entry.isFile() && entry.name.endsWith('.ko'))
      index.set(moduleName(entry.name), join(entry.parentPath, entry.name));
  return index;
}

/**
 * The .ko files to insmod, in an order where each comes after what it depends on (the guest has
 * no modprobe and no modules.dep): the wanted modules and their dependencies, read from each
 * module's own `depends=`. VMLAB_INITRAMFS_FAILED when one is not in the kernel package.
 */
export async function moduleLoadOrder(
  modulesDir: string,
  wanted: readonly string[],
): Promise<string[]> {
  const index = await indexModules(modulesDir);
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = async (name: string, chain: string[]): Promise<void> => {
    if (seen.has(name)) return;
    seen.add(name);
    const file = index.get(name);
    if (!file)
      throw new VmLabError(
        'VMLAB_INITRAMFS_FAILED',
        `the kernel package has no module ${name}${chain.length ? ` (needed by ${chain.join(' <- ')})` : ''} in ${modulesDir}`,
      );
    for (const dependency of moduleDepends(await readFile(file)))
      await visit(dependency, [name, ...chain]);
    order.push(file);
  };
  for (const name of wanted) await visit(moduleName(name), []);
  return order;
}
