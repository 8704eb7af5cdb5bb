import { stat } from 'node:fs/promises';
import type { BlockDeviceId } from '../model/block-devices.js';
import { readKernelText } from './kernel-files.js';
import type { LoopEntry } from './loop-table.js';
import { majorMinorOf } from './major-minor-of.js';
import { readWithin } from './read-within.js';

/** How much of a loop device whose backing voe cannot see is compared with the device: an ext superblock and more. */
const SAME_DATA_BYTES = 8192;

/**
 * The loop devices among `unknown` (whose backing path leads to nothing here: a device node or
 * file deleted since, a path of another mount namespace) that show the device's own data: their
 * first SAME_DATA_BYTES equal the device's at their offset. Such a loop device may be stacked on
 * the device through a name that is gone; one that cannot be read in time is counted too
 * ("could not look" is never "nobody"). Each is named with its backing path.
 */
export async function loopsWithSameData(
  sysfs: string,
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
      // Nothing to tell apart where the device holds only zeros: left out.
      if (mine.every((byte) => byte === 0)) return null;
      return Buffer.from(mine).equals(Buffer.from(theirs)) ? named : null;
    }),
  );
  return found.filter((name): name is string => name !== null);
}
