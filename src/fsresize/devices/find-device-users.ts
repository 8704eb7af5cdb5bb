import type { BlockDeviceId, DeviceUsers } from '../model/block-devices.js';
import {
  findDeviceOpeners,
  openersLookName,
  type DeviceOpenersFound,
} from './find-device-openers.js';
import { followLoopBackings, type LoopChain } from './follow-loop-backings.js';
import { FsResizeError } from '../model/fsresize-error.js';
import { listKernelDirectory, readKernelText } from './kernel-files.js';
import { readLoopTable, type LoopEntry } from './loop-table.js';
import { loopsWithSameData } from './loops-with-same-data.js';
import { refusesExclusiveOpen } from './refuses-exclusive-open.js';
import { showsOtherPidNamespace } from './shows-other-pid-namespace.js';
import { createStatWithin, type StatWithin } from './stat-within.js';
import { wholeDiskOf } from './whole-disk-of.js';

/** Where the look reads the kernel's state, and how long it may take. */
export interface DeviceUsersLook {
  /** Where sysfs is mounted. */
  sysfs: string;
  /** Where procfs is mounted; default /proc. */
  procRoot?: string;
  /** Longest look (see findDeviceOpeners). */
  timeoutMs: number;
}

/**
 * Who else uses the device now (BlockDevices.users): the processes that have it, its whole disk
 * or, for a loop device, what lies under it open; the kernel devices and loop devices stacked on
 * any of them; and for a loop device its backing, each with whether the kernel has it in use.
 */
export async function findDeviceUsers(
  look: DeviceUsersLook,
  device: BlockDeviceId,
  skipPids: ReadonlySet<number> | undefined,
): Promise<DeviceUsers> {
  const { sysfs } = look;
  // One bound for the whole look: its two lanes are all the thread-pool threads it may hold.
  const deadline = Date.now() + look.timeoutMs;
  const statWithin = createStatWithin(deadline, openersLookName(device.path));
  const disk = wholeDiskOf(sysfs, device.majorMinor);
  const own = disk === null ? [device.majorMinor] : [device.majorMinor, disk];
  const loops = readLoopTable(sysfs, statWithin);
  loops.catch(() => undefined); // awaited below
  // A loop device (or a partition of one) shows its backing file or device: what else shows or
  // opens that is looked for too, so the loop table comes first. Anything else: all at once.
  const isLoop = own.some(
    (number) => readKernelText(`${sysfs}/dev/block/${number}/loop/backing_file`) !== null,
  );
  const chain = isLoop
    ? followLoopBackings(own, await loops, (number) => wholeDiskOf(sysfs, number))
    : null;
  const numbers = [...own, ...(chain?.devices ?? [])];
  const [{ openedBy, unreadable }, holders, table, busy] = await Promise.all([
    openersOf(look, device, numbers, { statWithin, skipPids, chain }),
    numbers.flatMap((number) => listKernelDirectory(`${sysfs}/dev/block/${number}/holders`)),
    loops,
    Promise.all(
      (chain?.backing ?? []).map((backing) =>
        backing.kind === 'device' ? refusesExclusiveOpen(backing.path, deadline) : false,
      ),
    ),
  ]);
  const stacked = [
    ...loopsOver(table, numbers, chain),
    ...(await loopsWithSameData(sysfs, device, unseenBackings(table, chain), deadline)),
  ];
  return {
    openedBy,
    unreadable,
    ...(showsOtherPidNamespace(look.procRoot ?? '/proc') ? { processesHidden: true } : {}),
    holders: [...new Set([...holders, ...stacked])].sort(),
    disk,
    ...(chain === null
      ? {}
      : {
          backing: chain.backing.map((backing, i) => ({ ...backing, busy: busy[i] === true })),
        }),
  };
}

/** The processes that have any of `numbers` (or the chain's backing files) open. */
function openersOf(
  look: DeviceUsersLook,
  device: BlockDeviceId,
  numbers: string[],
  {
    statWithin,
    skipPids,
    chain,
  }: { statWithin: StatWithin; skipPids: ReadonlySet<number> | undefined; chain: LoopChain | null },
): Promise<DeviceOpenersFound> {
  return findDeviceOpeners(numbers, {
    statWithin,
    ...(look.procRoot === undefined ? {} : { procRoot: look.procRoot }),
    ...(skipPids ? { skipPids } : {}),
    ...(chain !== null && chain.files.size > 0 ? { files: chain.files } : {}),
  }).catch((error: unknown) => {
    if (error instanceof FsResizeError) throw error;
    throw new FsResizeError(
      'FSRESIZE_DEVICE_IO',
      `cannot list the processes (${look.procRoot ?? '/proc'}) to see who else has ${device.path} open (${(error as NodeJS.ErrnoException).code ?? String(error)}); nothing was changed`,
      { cause: error },
    );
  });
}

/**
 * Loop devices over the device (or a backing device) stack on it, as holders do; those sharing a
 * backing with the chain are named there.
 */
function loopsOver(table: LoopEntry[], numbers: string[], chain: LoopChain | null): string[] {
  return table
    .filter(
      (entry) =>
        entry.backing?.target.kind === 'device' &&
        numbers.includes(entry.backing.target.majorMinor) &&
        !chain?.loops.has(entry.name),
    )
    .map((entry) => entry.name);
}

/** Loop devices whose backing leads to nothing here (outside the chain): they may be stacked on the device unseen. */
function unseenBackings(table: LoopEntry[], chain: LoopChain | null): LoopEntry[] {
  return table.filter(
    (entry) => entry.backing?.target.kind === 'unknown' && !chain?.loops.has(entry.name),
  );
}
