import type { BlockDevices } from '../model/block-devices.js';
import { btrfsDevicesOf } from './btrfs-devices-of.js';
import type { CommandRunner } from '../model/command-runner.js';
import { DEFAULT_OPENERS_TIMEOUT_MS } from './find-device-openers.js';
import { findDeviceUsers } from './find-device-users.js';
import { FsResizeError } from '../model/fsresize-error.js';
import { identifyBlockDevice } from './identify-block-device.js';
import { readKernelText } from './kernel-files.js';
import { openDevice } from './open-device.js';
import { readDevice } from './read-device.js';
import { toolFailure } from '../model/tool-failure.js';
import type { BlockDeviceId } from '../model/block-devices.js';

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

/**
 * The production BlockDevices. Size and read-only flag come from sysfs
 * (/sys/dev/block/<major:minor>/size in 512-byte sectors, .../ro): the same kernel values
 * `blockdev --getsize64` and `blockdev --getro` return through ioctls, without starting a
 * process. When sysfs is not available it asks `blockdev`.
 */
export function createSystemBlockDevices(options: SystemBlockDevicesOptions): BlockDevices {
  const sysfs = options.sysfsRoot ?? '/sys';
  const timeoutMs = options.timeoutMs ?? 60_000;
  const look = {
    sysfs,
    ...(options.procRoot === undefined ? {} : { procRoot: options.procRoot }),
    timeoutMs: options.usersTimeoutMs ?? DEFAULT_OPENERS_TIMEOUT_MS,
  };
  const sysfsValue = (device: BlockDeviceId, name: string): string | null =>
    readKernelText(`${sysfs}/dev/block/${device.majorMinor}/${name}`)?.trim() ?? null;
  return {
    identify: identifyBlockDevice,
    async sizeBytes(device) {
      const sectors = sysfsValue(device, 'size');
      if (sectors !== null && /^\d+$/.test(sectors)) return Number(sectors) * 512;
      return blockdev(options.runner, timeoutMs, device, '--getsize64');
    },
    async readOnly(device) {
      const ro = sysfsValue(device, 'ro');
      if (ro === '0' || ro === '1') return ro === '1';
      return (await blockdev(options.runner, timeoutMs, device, '--getro')) === 1;
    },
    btrfsDevices: (fsid) => btrfsDevicesOf(sysfs, fsid),
    async hold(device) {
      const handle = await openDevice(device);
      return async () => {
        await handle.close();
      };
    },
    users: (device, usersOptions = {}) => findDeviceUsers(look, device, usersOptions.skipPids),
    read: readDevice,
  };
}

/** What `blockdev <flag> <device>` prints, a number: where sysfs does not say. */
async function blockdev(
  runner: CommandRunner,
  timeoutMs: number,
  device: BlockDeviceId,
  flag: '--getsize64' | '--getro',
): Promise<number> {
  const args = [flag, device.realPath];
  const result = await runner.run('blockdev', args, { timeoutMs });
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
