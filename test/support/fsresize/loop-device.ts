import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { constants, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { parseMountinfo } from '../../../src/fsresize/parse/parse-mountinfo.js';

const execFileAsync = promisify(execFile);

/** Runs a tool (argument array, no shell; stdin gets `input`, then end of file) and returns its stdout; throws with stderr on failure. */
export async function sh(command: string, args: string[], input = ''): Promise<string> {
  try {
    const running = execFileAsync(command, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    running.child.stdin?.on('error', () => undefined);
    running.child.stdin?.end(input);
    const { stdout } = await running;
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`, {
      cause: error,
    });
  }
}

/**
 * Waits (up to 5 s) until no filesystem holds `device` any more: an exclusive open (O_EXCL on a
 * block device, as mkfs opens it) succeeds. The kernel may let the unmounted filesystem go a
 * moment after umount returned.
 */
async function untilReleased(device: string): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    try {
      await (await open(device, constants.O_RDONLY | constants.O_EXCL)).close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY' || waited >= 5_000) return;
      await delay(50);
    }
  }
}

export interface Scratch {
  /** A new loop device over a sparse file of `bytes` (read-only when asked; `partScan`: the kernel shows its partitions, `<device>p<n>`). */
  attach(bytes: number, options?: AttachOptions): Promise<LoopDevice>;
  /** Another loop device over an existing backing file (e.g. a read-only view of it). */
  attachFile(backingFile: string, options?: AttachOptions): Promise<LoopDevice>;
  /** A new empty directory to mount on. */
  directory(name: string): Promise<string>;
  /** `mount --bind source target` (a file or a directory), unmounted by cleanup like every other mount. */
  bind(source: string, target: string): Promise<void>;
  /** `mount source target`: a filesystem mounted through any name of its device (e.g. a node made with mknod), unmounted by cleanup. */
  mountFrom(source: string, target: string): Promise<void>;
  /**
   * A new directory with a tmpfs of `bytes` mounted on it, unmounted by cleanup: for sparse
   * backing files larger than the root filesystem allows (ext4 limits a file to 16 TiB at 4 KiB
   * blocks; tmpfs files may be far larger, and only what is written takes memory).
   */
  tmpfs(name: string, bytes: number): Promise<string>;
  /** Unmounts everything mounted through this scratch, detaches every loop device, removes the files. */
  cleanup(): Promise<void>;
}

export interface AttachOptions {
  readOnly?: boolean;
  /** losetup --partscan: partitions become devices of their own (added with `partx -a`, resized with `partx -u`). */
  partScan?: boolean;
}

export interface LoopDevice {
  device: string;
  backingFile: string;
  /** Grows the sparse backing file and tells the loop driver (losetup -c). */
  growBacking(bytes: number): Promise<void>;
  mount(directory: string, options?: string[]): Promise<void>;
  unmount(directory: string): Promise<void>;
  /** losetup --detach, before the cleanup (which then leaves it alone). */
  detach(): Promise<void>;
}

/** What every live scratch holds, so an interrupted test process can still release it. */
const live = new Set<{ root: string; devices: string[]; mounted: string[] }>();
let interruptHookInstalled = false;

/**
 * Mount points at or under `root` that /proc/self/mountinfo lists, deepest first: what a test
 * mounted there without the scratch knowing (e.g. a FUSE mount whose daemon never answers), which
 * removing the directory would otherwise walk into, and wait on for ever.
 */
function mountsUnder(root: string): string[] {
  let text: string;
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  return parseMountinfo(text)
    .map((entry) => entry.mountPoint)
    .filter((point) => point === root || point.startsWith(`${root}/`))
    .sort((a, b) => b.split('/').length - a.split('/').length);
}

/**
 * On SIGINT/SIGTERM/SIGHUP (a cancelled or interrupted test run) clean-up hooks do not run:
 * unmount, detach and remove synchronously, then let the signal end the process as usual.
 */
function installInterruptHook(): void {
  if (interruptHookInstalled) return;
  interruptHookInstalled = true;
  const release = (): void => {
    for (const held of live) {
      for (const directory of [...held.mounted].reverse()) {
        try {
          execFileSync('umount', ['--lazy', directory], { stdio: 'ignore' });
        } catch {
          /* already gone */
        }
      }
      for (const directory of mountsUnder(held.root)) {
        try {
          execFileSync('umount', ['--lazy', directory], { stdio: 'ignore' });
        } catch {
          /* already gone */
        }
      }
      for (const device of [...held.devices].reverse()) {
        try {
          execFileSync('losetup', ['--detach', device], { stdio: 'ignore' });
        } catch {
          /* already gone */
        }
      }
      rmSync(held.root, { recursive: true, force: true });
    }
    live.clear();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      release();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/**
 * Loop devices, mounts and temporary files for one test. Register `cleanup` with `onCleanup`
 * (or call it in `finally`) so everything is released even when the test fails; an interrupted
 * test process releases them too.
 */
export async function createScratch(prefix = 'voe-fsresize-'): Promise<Scratch> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const devices: string[] = [];
  const mounted: string[] = [];
  const held = { root, devices, mounted };
  live.add(held);
  installInterruptHook();
  let counter = 0;
  async function attachFile(backingFile: string, options: AttachOptions = {}): Promise<LoopDevice> {
    const device = (
      await sh('losetup', [
        '--find',
        '--show',
        ...(options.readOnly ? ['--read-only'] : []),
        ...(options.partScan ? ['--partscan'] : []),
        backingFile,
      ])
    ).trim();
    devices.push(device);
    return {
      device,
      backingFile,
      async growBacking(newBytes) {
        await truncate(backingFile, newBytes);
        await sh('losetup', ['--set-capacity', device]);
      },
      async mount(directory, mountOptions = []) {
        await sh('mount', [
          ...(mountOptions.length ? ['-o', mountOptions.join(',')] : []),
          device,
          directory,
        ]);
        mounted.push(directory);
      },
      async unmount(directory) {
        await sh('umount', [directory]);
        const at = mounted.lastIndexOf(directory);
        if (at >= 0) mounted.splice(at, 1);
        // Still mounted elsewhere: held on purpose.
        const mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
        if (!mountinfo.includes(` ${device} `)) await untilReleased(device);
      },
      async detach() {
        await sh('losetup', ['--detach', device]);
        const at = devices.lastIndexOf(device);
        if (at >= 0) devices.splice(at, 1);
        // While anything still has it open (a probe of every device, e.g. `blkid` without arguments),
        // the kernel only marks it to be detached at its last close.
        const bound = `/sys/block/${basename(device)}/loop/backing_file`;
        for (
          let i = 0;
          i < 400 &&
          (await readFile(bound, 'utf8').then(
            (path) => [backingFile, `${backingFile} (deleted)`].includes(path.trim()),
            () => false,
          ));
          i += 1
        )
          await delay(25);
      },
    };
  }
  return {
    attachFile,
    async attach(bytes, options = {}) {
      counter += 1;
      const backingFile = join(root, `disk-${counter}.img`);
      await writeFile(backingFile, '');
      await truncate(backingFile, bytes);
      return attachFile(backingFile, options);
    },
    async directory(name) {
      const path = join(root, name);
      await mkdir(path, { recursive: true });
      return path;
    },
    async bind(source, target) {
      await sh('mount', ['--bind', source, target]);
      mounted.push(target);
    },
    async mountFrom(source, target) {
      await sh('mount', [source, target]);
      mounted.push(target);
    },
    async tmpfs(name, bytes) {
      const path = join(root, name);
      await mkdir(path, { recursive: true });
      await sh('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'voe-test-tmpfs', path]);
      // A loop device over a file on it keeps it busy until it is detached: cleanup unmounts it lazily then.
      mounted.push(path);
      return path;
    },
    async cleanup() {
      const problems: string[] = [];
      for (const directory of mounted.reverse()) {
        await sh('umount', [directory])
          .catch(() => sh('umount', ['--lazy', directory]))
          .catch((e: Error) => problems.push(e.message));
      }
      mounted.length = 0;
      // Anything else mounted under the scratch (lazily: it may be a mount that never answers).
      for (const directory of mountsUnder(root)) {
        await sh('umount', ['--lazy', directory]).catch((e: Error) => problems.push(e.message));
      }
      for (const device of devices.reverse()) {
        await sh('losetup', ['--detach', device]).catch((e: Error) => problems.push(e.message));
      }
      devices.length = 0;
      await rm(root, { recursive: true, force: true });
      live.delete(held);
      if (problems.length) throw new Error(`scratch cleanup: ${problems.join('; ')}`);
    },
  };
}

/** Writes files of random data and returns their sha256 checksums by name. */
export async function writeChecksummedFiles(
  directory: string,
  count = 4,
  bytes = 1024 * 1024,
): Promise<Map<string, string>> {
  const sums = new Map<string, string>();
  for (let i = 0; i < count; i += 1) {
    const data = randomBytes(bytes + i * 4099);
    const name = `data-${i}.bin`;
    await writeFile(join(directory, name), data);
    sums.set(name, createHash('sha256').update(data).digest('hex'));
  }
  await sh('sync', []);
  return sums;
}

/** Checksums of the same files as they read now. */
export async function readChecksums(
  directory: string,
  names: Iterable<string>,
): Promise<Map<string, string>> {
  const sums = new Map<string, string>();
  for (const name of names)
    sums.set(
      name,
      createHash('sha256')
        .update(await readFile(join(directory, name)))
        .digest('hex'),
    );
  return sums;
}

/** Whether this process holds CAP_SYS_RESOURCE (bit 24 of CapEff), which ext4 online resize needs. */
export async function hasCapSysResource(): Promise<boolean> {
  const status = await readFile('/proc/self/status', 'utf8');
  const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? '0';
  return (BigInt(`0x${hex}`) & (1n << 24n)) !== 0n;
}

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

/**
 * Shell commands, for the start of a script run by `unshare --mount`: a new mount namespace gets a
 * copy of every mount, other tests' loop filesystems included, and a private copy outlives their
 * unmount, so their device stays busy (e2fsck: device in use) while the namespace lives. Lazily
 * unmounts, inside the namespace, every loop-device mount but the one at "$VOE_KEEP_MOUNT" (if set).
 */
export const DROP_OTHER_LOOP_MOUNTS =
  'for m in $(awk \'$1 ~ "^/dev/loop" { print $2 }\' /proc/self/mounts); do [ "$m" = "${VOE_KEEP_MOUNT:-}" ] || umount -l "$m"; done';
