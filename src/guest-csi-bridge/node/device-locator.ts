import { watch } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { pickDeviceLink } from './pick-device-link.js';

/** Finds the block device of a volume on this node. */
export interface DeviceLocator {
  /** The volume's device, symlinks resolved (e.g. /dev/sdb), or undefined when it is not there. */
  find(volumeId: string): Promise<string | undefined>;
  /** Like find, waiting (until `signal` aborts) for the device to show up; undefined when it did not. */
  waitFor(volumeId: string, signal: AbortSignal): Promise<string | undefined>;
}

/** Where udev links disks by their serial: the production locator's directory. */
export const DEFAULT_BY_ID_DIRECTORY = '/dev/disk/by-id';

/**
 * The production DeviceLocator: the entry of `directory` (/dev/disk/by-id) that pickDeviceLink
 * chooses, resolved. waitFor follows the directory with inotify (fs.watch) rather than a polling
 * interval: a hotplugged disk's link appears there when udev has handled it.
 */
export function createByIdLocator(directory = DEFAULT_BY_ID_DIRECTORY): DeviceLocator {
  async function find(volumeId: string): Promise<string | undefined> {
    const names = await readdir(directory).catch(() => [] as string[]);
    const link = pickDeviceLink(names, volumeId);
    if (link === undefined) return undefined;
    return realpath(join(directory, link)).catch(() => undefined);
  }
  return {
    find,
    async waitFor(volumeId, signal) {
      const found = await find(volumeId);
      if (found !== undefined || signal.aborted) return found;
      return new Promise<string | undefined>((resolve) => {
        let settled = false;
        let watcher: ReturnType<typeof watch> | undefined;
        const finish = (value: string | undefined): void => {
          if (settled) return;
          settled = true;
          watcher?.close();
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        };
        const onAbort = (): void => finish(undefined);
        const look = (): void => {
          void find(volumeId).then((device) => {
            if (device !== undefined) finish(device);
          });
        };
        signal.addEventListener('abort', onAbort, { once: true });
        try {
          watcher = watch(directory, { persistent: false }, look);
          watcher.on('error', () => undefined);
        } catch {
          // No such directory yet (no disk with a serial has appeared): only the look below, then the deadline.
        }
        look();
      });
    },
  };
}
