import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { findGuestPackages, type GuestPackages } from './guest-packages.js';
import { GUEST_INIT } from './guest-init.js';
import { GUEST_TOOLS } from './guest-tools.js';
import { moduleLoadOrder } from './kernel-modules.js';
import { newcArchive, type NewcEntry } from './newc-archive.js';
import { VmLabError } from './vm-lab-error.js';

const run = promisify(execFile);

/**
 * The modules the lab's guest loads (docs/tracker.md "The VM lab"): virtio over PCI, virtio-blk and
 * virtio-scsi disks (with the SCSI disk driver), the q35 machine's AHCI controller and the SCSI
 * cdrom driver (a SATA cdrom is the guest's sr0), the console ports the agent talks through, ext4
 * (which mounts the ext2 filesystem of `voe.fs=`, and will not mount without a crc32c driver), the
 * other filesystems the growth tools grow (xfs, btrfs), device-mapper for LVM (dm_mod: its linear
 * target is what lvcreate and lvextend map), the virtio NIC of `userNetwork` and the NFSv4
 * client (nfsv4, with nfs and sunrpc) that mounts a shared volume's share, and what they depend on.
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
  'xfs',
  'btrfs',
  'dm_mod',
  'virtio_net',
  'nfsv4',
] as const;

/** The lab's kernel and initramfs, ready to boot. */
export interface GuestImage {
  vmlinuz: string;
  initramfs: string;
}

/** A shared library: where it is read from, and its path in the guest. */
export interface SharedLibrary {
  from: string;
  to: string;
}

/**
 * The libraries `ldd` lists for a binary, resolved on this machine (the same Debian release as the
 * packages) with the unpacked library packages in `libraryDirs` first: one found in such a package
 * keeps its path inside the package in the guest, one of this machine its own path.
 * VMLAB_INITRAMFS_FAILED when one is found nowhere.
 */
export async function sharedLibraries(
  binary: string,
  libraryDirs: readonly string[] = [],
): Promise<SharedLibrary[]> {
  const searched = libraryDirs.flatMap((dir) => [
    join(dir, 'lib', 'x86_64-linux-gnu'),
    join(dir, 'usr', 'lib', 'x86_64-linux-gnu'),
  ]);
  const { stdout } = await run('ldd', [binary], {
    encoding: 'utf8',
    env: { ...process.env, LD_LIBRARY_PATH: searched.join(':') },
  });
  const libraries: SharedLibrary[] = [];
  for (const line of stdout.split('\n')) {
    if (/=>\s*not found/.test(line))
      throw new VmLabError(
        'VMLAB_INITRAMFS_FAILED',
        `${binary} needs ${line.trim().split(/\s/)[0]}, found neither on this machine nor in ${libraryDirs.join(', ') || 'an unpacked package'}`,
      );
    const match = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (!match) continue;
    const from = match[1]!;
    const inPackage = libraryDirs.find((dir) => from.startsWith(`${dir}/`));
    libraries.push({ from, to: inPackage ? relative(inPackage, from) : from.slice(1) });
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

/** Whether the file starts as an ELF object (a binary ldd reads; not a script). */
async function isElf(path: string): Promise<boolean> {
  return (await readFile(path)).subarray(0, 4).equals(Buffer.from('\x7fELF', 'latin1'));
}

/**
 * The growth tools of GUEST_TOOLS at their packages' paths (a symbolic link as a link), and the
 * libraries of each binary not yet in `libraries` (paths already added).
 */
async function toolEntries(
  entries: NewcEntry[],
  seen: Set<string>,
  libraries: Set<string>,
  packages: GuestPackages,
): Promise<void> {
  const libraryDirs = [...packages.libraries, ...Object.values(packages.tools)];
  for (const tool of GUEST_TOOLS) {
    const dir = packages.tools[tool.package]!;
    for (const path of tool.paths) {
      const from = join(dir, path);
      const found = await lstat(from).catch(() => undefined);
      if (!found)
        throw new VmLabError('VMLAB_INITRAMFS_FAILED', `${tool.package} has no ${path} in ${dir}`);
      addDirs(entries, seen, dirname(path));
      if (found.isSymbolicLink()) {
        entries.push({ kind: 'symlink', path, target: await readlink(from) });
        continue;
      }
      await fileEntry(entries, seen, from, path, found.mode & 0o777);
      if (!(await isElf(from))) continue;
      for (const library of await sharedLibraries(from, libraryDirs)) {
        if (libraries.has(library.to)) continue;
        libraries.add(library.to);
        await fileEntry(entries, seen, library.from, library.to);
      }
    }
  }
}

/** The initramfs's entries: /init, busybox, qemu-ga, the growth tools and their libraries, the modules and their order. */
async function initramfsEntries(packages: GuestPackages, modules: string[]): Promise<NewcEntry[]> {
  const entries: NewcEntry[] = [];
  const seen = new Set<string>();
  for (const dir of ['dev', 'proc', 'sys', 'tmp', 'etc', 'run/lock', 'lib/modules'])
    addDirs(entries, seen, dir);
  entries.push({ kind: 'char', path: 'dev/console', major: 5, minor: 1 });
  entries.push({ kind: 'file', path: 'init', data: Buffer.from(GUEST_INIT), mode: 0o755 });
  await fileEntry(entries, seen, packages.busybox, 'bin/busybox');
  await fileEntry(entries, seen, packages.qemuGa, 'usr/bin/qemu-ga');
  const libraries = new Set<string>();
  for (const library of await sharedLibraries(packages.qemuGa)) {
    libraries.add(library.to);
    await fileEntry(entries, seen, library.from, library.to);
  }
  await toolEntries(entries, seen, libraries, packages);
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
 * assembled from the unpacked packages (busybox, qemu-ga and the growth tools with the libraries
 * ldd lists, the modules in dependency order, GUEST_INIT) once, and cached in <cache>/vm-lab keyed by the
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
        tools: GUEST_TOOLS,
        format: 2,
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
