import { open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import type { BlockDeviceId, BlockDevices } from './block-devices.js';
import {
  DEFAULT_OPENERS_TIMEOUT_MS,
  findDeviceOpeners,
  openersLookName,
} from './find-device-openers.js';
import { followLoopBackings } from './follow-loop-backings.js';
import { readLoopTable, type LoopEntry } from './loop-table.js';
import { readWithin } from './read-within.js';
import { refusesExclusiveOpen } from './refuses-exclusive-open.js';
import { showsOtherPidNamespace } from './shows-other-pid-namespace.js';
import { createStatWithin } from './stat-within.js';
import { listKernelDirectory, readKernelText } from './kernel-files.js';
import { majorMinorOf } from './major-minor-of.js';
import type { CommandRunner } from './command-runner.js';
import { FsResizeError } from './fsresize-error.js';
import { toolFailure } from './tool-failure.js';

export interface SystemBlockDevicesOptions {
  runner: CommandRunner;
  /** Where sysfs is mounted; default /sys. */
  sysfsRoot?: string;
  /** Where procfs is mounted; default /proc. */
  procRoot?: string;
  /** Longest look for other users of a device (see findDeviceOpeners); default 10 s. */
  usersTimeoutMs?: number;
  timeoutMs?: number;
}

/** How much of a loop device whose backing voe cannot see is compared with the device (sameDataAs): an ext superblock and more. */
const SAME_DATA_BYTES = 8192;

/** A typed error for a failed open or read of the device itself (never its content). */
function deviceError(device: BlockDeviceId, what: 'open' | 'read', error: unknown): FsResizeError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  if (code === 'EACCES' || code === 'EPERM') {
    return new FsResizeError(
      'FSRESIZE_PERMISSION_DENIED',
      `cannot ${what} ${device.path} (${code}); run voe as root on the node`,
      { cause: error },
    );
  }
  if (code === 'ENOENT' || code === 'ENXIO' || code === 'ENODEV') {
    return new FsResizeError(
      'FSRESIZE_DEVICE_NOT_FOUND',
      `cannot ${what} ${device.path} (${code}): the device went away; is the volume still attached?`,
      { cause: error },
    );
  }
  return new FsResizeError(
    'FSRESIZE_DEVICE_IO',
    `cannot ${what} ${device.path} (${code}); nothing was changed — check the device (dmesg) and retry`,
    { cause: error },
  );
}

function openDevice(device: BlockDeviceId): ReturnType<typeof open> {
  return open(device.realPath, 'r').catch((error: unknown) => {
    throw deviceError(device, 'open', error);
  });
}

/**
 * The production BlockDevices. Size and read-only flag come from sysfs
 * (/sys/dev/block/<major:minor>/size in 512-byte sectors, .../ro): the same kernel values
 * `blockdev --getsize64` and `blockdev --getro` return through ioctls, without starting a
 * process. When sysfs is not available it asks `blockdev`.
 */
export function createSystemBlockDevices(options: SystemBlockDevicesOptions): BlockDevices {
  const sysfs = options.sysfsRoot ?? '/sys';
  const timeoutMs = options.timeoutMs ?? 60_000;
  const usersTimeoutMs = options.usersTimeoutMs ?? DEFAULT_OPENERS_TIMEOUT_MS;

  /** The whole disk of a partition ("major:minor" from the parent's sysfs directory), else null. */
  function wholeDiskOf(majorMinor: string): string | null {
    const directory = `${sysfs}/dev/block/${majorMinor}`;
    if (readKernelText(`${directory}/partition`) === null) return null;
    const parent = readKernelText(`${directory}/../dev`)?.trim() ?? null;
    return parent !== null && /^\d+:\d+$/.test(parent) ? parent : null;
  }

  /**
   * The loop devices among `unknown` (whose backing path leads to nothing here: a device node or
   * file deleted since, a path of another mount namespace) that show the device's own data: their
   * first SAME_DATA_BYTES equal the device's at their offset. Such a loop device may be stacked on
   * the device through a name that is gone; one that cannot be read in time is counted too
   * ("could not look" is never "nobody"). Each is named with its backing path.
   */
  async function sameDataAs(
    device: BlockDeviceId,
    unknown: readonly LoopEntry[],
    deadline: number,
  ): Promise<string[]> {
    if (unknown.length === 0) return [];
    const found = await Promise.all(
      unknown.map(async (entry): Promise<string | null> => {
        const offset = Number(
          readKernelText(`${sysfs}/block/${entry.name}/loop/offset`)?.trim() ?? '0',
        );
        const named = `${entry.name} (over ${entry.backing?.path ?? '?'}, which voe cannot see from here)`;
        const node = `/dev/${entry.name}`;
        const info = await stat(node).catch(() => null);
        if (
          !info?.isBlockDevice() ||
          majorMinorOf(info.rdev) !== entry.majorMinor ||
          !Number.isSafeInteger(offset)
        )
          return named;
        const [mine, theirs] = await Promise.all([
          readWithin(device.realPath, offset, SAME_DATA_BYTES, deadline),
          readWithin(node, 0, SAME_DATA_BYTES, deadline),
        ]);
        if (mine === null || theirs === null) return named;
        // Nothing to tell apart where the device holds only zeros: not counted.
        if (mine.every((byte) => byte === 0)) return null;
        return Buffer.from(mine).equals(Buffer.from(theirs)) ? named : null;
      }),
    );
    return found.filter((name): name is string => name !== null);
  }

  async function sysfsValue(device: BlockDeviceId, name: string): Promise<string | null> {
    return readKernelText(`${sysfs}/dev/block/${device.majorMinor}/${name}`)?.trim() ?? null;
  }

  async function blockdev(device: BlockDeviceId, flag: '--getsize64' | '--getro'): Promise<number> {
    const args = [flag, device.realPath];
    const result = await options.runner.run('blockdev', args, { timeoutMs });
    if (result.exitCode !== 0)
      throw toolFailure('blockdev', args, result, `reading ${flag.slice(5)} of ${device.path}`);
    const value = Number(result.stdout.trim());
    if (!Number.isSafeInteger(value)) {
      throw new FsResizeError(
        'FSRESIZE_UNEXPECTED_OUTPUT',
        `blockdev ${args.join(' ')} printed "${result.stdout.trim()}", not a number; nothing was changed`,
      );
    }
    return value;
  }

  return {
    async identify(path) {
      // The link resolved once, and the device number read from what it resolved to: a link
      // (e.g. /dev/disk/by-id/...) re-pointed meanwhile cannot give a number of one device and
      // the path of another.
      let realPath: string;
      let info;
      try {
        realPath = await realpath(path);
        info = await stat(realPath);
      } catch (error) {
        throw new FsResizeError(
          'FSRESIZE_DEVICE_NOT_FOUND',
          `device ${path} does not exist on this node; check the path (is the volume attached?)`,
          { cause: error },
        );
      }
      if (!info.isBlockDevice()) {
        const what = info.isCharacterDevice()
          ? 'a character device'
          : info.isDirectory()
            ? 'a directory'
            : info.isFIFO()
              ? 'a pipe'
              : info.isSocket()
                ? 'a socket'
                : 'a file';
        throw new FsResizeError(
          'FSRESIZE_NOT_A_BLOCK_DEVICE',
          `${path} is not a block device but ${what}; pass the block device (e.g. /dev/sdb)`,
        );
      }
      return { path, realPath, majorMinor: majorMinorOf(info.rdev) };
    },
    async sizeBytes(device) {
      const sectors = await sysfsValue(device, 'size');
      if (sectors !== null && /^\d+$/.test(sectors)) return Number(sectors) * 512;
      return blockdev(device, '--getsize64');
    },
    async readOnly(device) {
      const ro = await sysfsValue(device, 'ro');
      if (ro === '0' || ro === '1') return ro === '1';
      return (await blockdev(device, '--getro')) === 1;
    },
    async btrfsDevices(fsid) {
      // A filesystem id is a UUID: never a path.
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(fsid))
        return null;
      const directory = `${sysfs}/fs/btrfs/${fsid.toLowerCase()}/devices`;
      const names = await readdir(directory).catch(() => null);
      if (names === null) return null;
      const numbers = await Promise.all(
        names.map((name) =>
          readFile(`${directory}/${name}/dev`, 'utf8').then(
            (text) => text.trim(),
            () => null,
          ),
        ),
      );
      return numbers.filter((n): n is string => n !== null && /^\d+:\d+$/.test(n));
    },
    async hold(device) {
      const handle = await openDevice(device);
      return async () => {
        await handle.close();
      };
    },
    async users(device, usersOptions = {}) {
      // One bound for the whole look: its two lanes are all the thread-pool threads it may hold.
      const deadline = Date.now() + usersTimeoutMs;
      const statWithin = createStatWithin(deadline, openersLookName(device.path));
      const disk = wholeDiskOf(device.majorMinor);
      const own = disk === null ? [device.majorMinor] : [device.majorMinor, disk];
      const loops = readLoopTable(sysfs, statWithin);
      loops.catch(() => undefined); // awaited below
      // A loop device (or a partition of one) shows its backing file or device: what else shows or
      // opens that is looked for too, so the loop table comes first. Anything else: all at once.
      const isLoop = own.some(
        (number) => readKernelText(`${sysfs}/dev/block/${number}/loop/backing_file`) !== null,
      );
      const chain = isLoop ? followLoopBackings(own, await loops, wholeDiskOf) : null;
      const numbers = [...own, ...(chain?.devices ?? [])];
      const [{ openedBy, unreadable }, holders, table, busy] = await Promise.all([
        findDeviceOpeners(numbers, {
          statWithin,
          ...(options.procRoot === undefined ? {} : { procRoot: options.procRoot }),
          ...(usersOptions.skipPids ? { skipPids: usersOptions.skipPids } : {}),
          ...(chain !== null && chain.files.size > 0 ? { files: chain.files } : {}),
        }).catch((error: unknown) => {
          if (error instanceof FsResizeError) throw error;
          throw new FsResizeError(
            'FSRESIZE_DEVICE_IO',
            `cannot list the processes (${options.procRoot ?? '/proc'}) to see who else has ${device.path} open (${(error as NodeJS.ErrnoException).code ?? String(error)}); nothing was changed`,
            { cause: error },
          );
        }),
        numbers.flatMap((number) => listKernelDirectory(`${sysfs}/dev/block/${number}/holders`)),
        loops,
        Promise.all(
          (chain?.backing ?? []).map((backing) =>
            backing.kind === 'device' ? refusesExclusiveOpen(backing.path, deadline) : false,
          ),
        ),
      ]);
      // Loop devices over the device (or a backing device) stack on it, as holders do; those sharing a backing are named there.
      const stacked = table
        .filter(
          (entry) =>
            entry.backing?.target.kind === 'device' &&
            numbers.includes(entry.backing.target.majorMinor) &&
            !chain?.loops.has(entry.name),
        )
        .map((entry) => entry.name);
      stacked.push(
        ...(await sameDataAs(
          device,
          table.filter(
            (entry) => entry.backing?.target.kind === 'unknown' && !chain?.loops.has(entry.name),
          ),
          deadline,
        )),
      );
      return {
        openedBy,
        unreadable,
        ...(showsOtherPidNamespace(options.procRoot ?? '/proc') ? { processesHidden: true } : {}),
        holders: [...new Set([...holders, ...stacked])].sort(),
        disk,
        ...(chain === null
          ? {}
          : {
              backing: chain.backing.map((backing, i) => ({ ...backing, busy: busy[i] === true })),
            }),
      };
    },
    async read(device, offset, length) {
      const handle = await openDevice(device);
      try {
        const buffer = new Uint8Array(length);
        const { bytesRead } = await handle
          .read(buffer, 0, length, offset)
          .catch((error: unknown) => {
            throw deviceError(device, 'read', error);
          });
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
  };
}
