import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { GUEST_TOOL_PACKAGES } from './guest-tools.js';
import { VmLabError } from './vm-lab-error.js';

/** The guest's pieces, unpacked by scripts/install-test-deps.sh under <cache>/vm-lab/packages. */
export interface GuestPackages {
  /** The package directories (<package>_<version>) guest.list names, the initramfs's cache key. */
  names: string[];
  vmlinuz: string;
  /** lib/modules/<version> of the kernel package. */
  modulesDir: string;
  busybox: string;
  qemuGa: string;
  /** Each growth tool package (GUEST_TOOLS) by name: its unpacked directory. */
  tools: Record<string, string>;
  /** The unpacked library packages' directories (what this machine has not installed). */
  libraries: string[];
}

/** Where install-test-deps.sh unpacks the guest's packages. */
export function packagesDir(cacheDir: string): string {
  return join(cacheDir, 'vm-lab', 'packages');
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The package of a directory named <package>_<version>. */
function packageOf(name: string): string {
  return name.slice(0, name.indexOf('_'));
}

/**
 * The unpacked kernel, busybox-static, qemu-guest-agent, growth tools and libraries that
 * guest.list names; VMLAB_PACKAGES_MISSING if any is not there.
 */
export async function findGuestPackages(cacheDir: string): Promise<GuestPackages> {
  const dir = packagesDir(cacheDir);
  const missing = (what: string): VmLabError =>
    new VmLabError(
      'VMLAB_PACKAGES_MISSING',
      `the VM lab's guest packages are not unpacked in ${dir} (${what}); run "bash scripts/install-test-deps.sh vm" (as root or with sudo)`,
    );
  let list: string;
  try {
    list = await readFile(join(dir, 'guest.list'), 'utf8');
  } catch {
    throw missing('no guest.list');
  }
  const names = list.trim().split(/\s+/).filter(Boolean);
  const kernel = names.find((name) => name.startsWith('linux-image-'));
  const busybox = names.find((name) => name.startsWith('busybox-static_'));
  const agent = names.find((name) => name.startsWith('qemu-guest-agent_'));
  if (!kernel || !busybox || !agent) throw missing(`guest.list names ${names.join(', ')}`);
  const tools: Record<string, string> = {};
  for (const tool of GUEST_TOOL_PACKAGES) {
    const name = names.find((entry) => packageOf(entry) === tool);
    if (!name) throw missing(`guest.list names no ${tool}`);
    tools[tool] = join(dir, name);
  }
  const libraries = names
    .filter((name) => ![kernel, busybox, agent].includes(name))
    .filter((name) => !GUEST_TOOL_PACKAGES.includes(packageOf(name)))
    .map((name) => join(dir, name));
  const boot = join(dir, kernel, 'boot');
  const vmlinuz = (await readdir(boot).catch(() => [] as string[])).find((f) =>
    f.startsWith('vmlinuz-'),
  );
  const versions = await readdir(join(dir, kernel, 'lib', 'modules')).catch(() => [] as string[]);
  const found: GuestPackages = {
    names,
    vmlinuz: join(boot, vmlinuz ?? 'vmlinuz'),
    modulesDir: join(dir, kernel, 'lib', 'modules', versions[0] ?? ''),
    busybox: join(dir, busybox, 'bin', 'busybox'),
    qemuGa: join(dir, agent, 'usr', 'sbin', 'qemu-ga'),
    tools,
    libraries,
  };
  for (const path of [found.vmlinuz, found.busybox, found.qemuGa, ...Object.values(tools)])
    if (!(await exists(path))) throw missing(`${path} is missing`);
  if (versions.length !== 1)
    throw missing(`${join(dir, kernel, 'lib', 'modules')} holds ${versions.length} kernels`);
  return found;
}
