import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { findGuestPackages, type GuestPackages } from './guest-packages.js';
import { GUEST_INIT } from './guest-init.js';
import { moduleLoadOrder } from './kernel-modules.js';
import { newcArchive, type NewcEntry } from './newc-archive.js';
import { VmLabError } from './vm-lab-error.js';

const run = promisify(execFile);

/**
 * The modules the lab's guest loads (docs/tracker.md "The VM lab"): virtio over PCI, virtio-blk and
 * virtio-scsi disks (with the SCSI disk driver), the q35 machine's AHCI controller and the SCSI
 * cdrom driver (a SATA cdrom is the guest's sr0), the console ports the agent talks through, ext4
 * (which mounts the ext2 filesystem of `voe.fs=`, and will not mount without a crc32c driver), and
 * what they depend on.
 */
export const GUEST_MODULES = [
  'virtio_pci',
  'virtio_blk',
  'virtio_console',
  'virtio_scsi',
  'sd_mod',
  'ahci',
  'sr_mod',
  'crc32c_generic',
  'ext4',
] as const;

/** The lab's kernel and initramfs, ready to boot. */
export interface GuestImage {
  vmlinuz: string;
  initramfs: string;
}

/** The libraries `ldd` lists for a binary (resolved on this machine: the same Debian release as the packages). */
export async function sharedLibraries(binary: string): Promise<string[]> {
  const { stdout } = await run('ldd', [binary], { encoding: 'utf8' });
  const libraries: string[] = [];
  for (const line of stdout.split('\n')) {
    const match = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (match) libraries.push(match[1]!);
  }
  return libraries;
}

/** Adds the directories of `path` (and `path` itself when asked) once each, parents first. */
function addDirs(entries: NewcEntry[], seen: Set<string>, path: string): void {
  const parts = path.split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    if (seen.has(dir)) continue;
    seen.add(dir);
    entries.push({ kind: 'dir', path: dir });
  }
}

async function fileEntry(
  entries: NewcEntry[],
  seen: Set<string>,
  from: string,
  to: string,
  mode = 0o755,
): Promise<void> {
  addDirs(entries, seen, dirname(to));
  entries.push({ kind: 'file', path: to, data: await readFile(await realpath(from)), mode });
}

/** The initramfs's entries: /init, busybox, qemu-ga and its libraries, the modules and their order. */
async function initramfsEntries(packages: GuestPackages, modules: string[]): Promise<NewcEntry[]> {
  const entries: NewcEntry[] = [];
  const seen = new Set<string>();
  for (const dir of ['dev', 'proc', 'sys', 'tmp', 'etc', 'lib/modules'])
    addDirs(entries, seen, dir);
  entries.push({ kind: 'char', path: 'dev/console', major: 5, minor: 1 });
  entries.push({ kind: 'file', path: 'init', data: Buffer.from(GUEST_INIT), mode: 0o755 });
  await fileEntry(entries, seen, packages.busybox, 'bin/busybox');
  await fileEntry(entries, seen, packages.qemuGa, 'usr/bin/qemu-ga');
  for (const library of await sharedLibraries(packages.qemuGa))
    await fileEntry(entries, seen, library, library.slice(1));
  for (const module of modules)
    await fileEntry(entries, seen, module, `lib/modules/${basename(module)}`, 0o644);
  entries.push({
    kind: 'file',
    path: 'etc/modules.order',
    data: Buffer.from(modules.map((module) => basename(module)).join('\n') + '\n'),
  });
  return entries;
}

/**
 * The lab guest's kernel and initramfs (docs/tracker.md "The VM lab"): the initramfs is
 * assembled from the unpacked packages (busybox, qemu-ga with the libraries ldd lists, the virtio
 * modules in dependency order, GUEST_INIT) once, and cached in <cache>/vm-lab keyed by the
 * package versions and what goes into it.
 */
export async function guestImage(cacheDir: string): Promise<GuestImage> {
  const packages = await findGuestPackages(cacheDir);
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        packages: packages.names,
        init: GUEST_INIT,
        modules: GUEST_MODULES,
        format: 1,
      }),
    )
    .digest('hex')
    .slice(0, 16);
  const initramfs = join(cacheDir, 'vm-lab', `initramfs-${key}.gz`);
  const image = { vmlinuz: packages.vmlinuz, initramfs };
  if (
    await stat(initramfs).then(
      (s) => s.size > 0,
      () => false,
    )
  )
    return image;
  try {
    const modules = await moduleLoadOrder(packages.modulesDir, GUEST_MODULES);
    const archive = gzipSync(newcArchive(await initramfsEntries(packages, modules)));
    await mkdir(dirname(initramfs), { recursive: true });
    const partial = `${initramfs}.${process.pid}.partial`;
    await writeFile(partial, archive);
    await rename(partial, initramfs);
    // Older keys (other package versions, another /init) are not used again.
    for (const old of await readdir(dirname(initramfs)))
      if (/^initramfs-[0-9a-f]{16}\.gz$/.test(old) && join(dirname(initramfs), old) !== initramfs)
        await rm(join(dirname(initramfs), old), { force: true });
  } catch (error) {
    if (error instanceof VmLabError) throw error;
    throw new VmLabError(
      'VMLAB_INITRAMFS_FAILED',
      `assembling the lab guest's initramfs failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return image;
}
