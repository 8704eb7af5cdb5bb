import { setTimeout as delay } from 'node:timers/promises';
import type { BlockDeviceId, BlockDevices } from '../../fsresize/index.js';
import { deviceGrown, type GrowthTarget } from './device-grown.js';

/** First and longest pause between two reads of a device's size while it grows. */
const FIRST_PAUSE_MS = 20;
const LONGEST_PAUSE_MS = 1_000;

/**
 * Resolves with the device's size once deviceGrown accepts it, reading it (sysfs, no process)
 * with pauses that double from 20 ms to 1 s; with the last size read when `signal` aborts first.
 * The kernel announces a capacity change only as a uevent, which a node driver without udev's
 * socket cannot follow: hence the reads.
 */
export async function waitForDeviceSize(
  devices: BlockDevices,
  id: BlockDeviceId,
  target: GrowthTarget,
  signal: AbortSignal,
): Promise<number> {
  let pause = FIRST_PAUSE_MS;
  let previous: number | undefined;
  for (;;) {
    const size = await devices.sizeBytes(id);
    if (deviceGrown(target, previous, size) || signal.aborted) return size;
    previous = size;
    await delay(pause, undefined, { signal }).catch(() => undefined);
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
  }
}
