import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { beforeDeadline, LATE } from './before-deadline.js';

/**
 * Whether the kernel refuses an exclusive open of the block device at `path` (O_EXCL without
 * O_CREAT: EBUSY while it is mounted, in any mount namespace, or claimed by device-mapper, RAID
 * or another exclusive opener), or the open fails or does not answer before `deadline`
 * (Date.now() ms): true unless the device was seen free. A free device is closed again at once;
 * for that moment another exclusive opener (a mount) would be refused, as by any probe that claims it.
 */
export async function refusesExclusiveOpen(path: string, deadline: number): Promise<boolean> {
  // An open that answers after voe stopped waiting is closed then.
  const call = open(path, constants.O_RDONLY | constants.O_EXCL).then(
    (handle) => handle,
    () => null,
  );
  const outcome = await beforeDeadline(call, deadline);
  if (outcome === LATE) {
    void call.then((handle) => handle?.close());
    return true;
  }
  if (outcome === null) return true;
  await outcome.close();
  return false;
}
