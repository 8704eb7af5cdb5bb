import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { abandonCall } from './abandoned-calls.js';

/**
 * Whether the kernel refuses an exclusive open of the block device at `path` (O_EXCL without
 * O_CREAT: EBUSY while it is mounted, in any mount namespace, or claimed by device-mapper, RAID
 * or another exclusive opener), or the open fails or does not answer before `deadline`
 * (Date.now() ms): true unless the device was seen free. A free device is closed again at once;
 * for that moment another exclusive opener (a mount) would be refused, as by any probe that claims it.
 */
export async function refusesExclusiveOpen(path: string, deadline: number): Promise<boolean> {
  const call = open(path, constants.O_RDONLY | constants.O_EXCL);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now())); });
  try {
    const outcome = await Promise.race([call.then((handle) => handle, () => null), late]);
    if (outcome === 'late') {
      abandonCall(call.then((handle) => handle.close(), () => undefined));
      return true;
    }
    if (outcome === null) return true;
    await outcome.close();
    return false;
  } finally {
    clearTimeout(timer);
  }
}
