import type { BlockDeviceId, BlockDevices } from '../model/block-devices.js';
import { FsResizeError } from '../model/fsresize-error.js';

/**
 * The device name still leads to the device voe locked (and inspected): a name re-pointed while
 * voe waited for the lock or ran a check (a node made anew, a link changed) would send the tools
 * to another device, which no lock and no look for users covered. `outcome` says what was done
 * when it does not.
 */
export async function confirmSameDevice(
  devices: BlockDevices,
  id: BlockDeviceId,
  outcome = 'nothing was changed',
  details: { details?: Record<string, unknown> } = {},
): Promise<void> {
  const now = await devices.identify(id.path);
  if (now.majorMinor === id.majorMinor && now.realPath === id.realPath) return;
  throw new FsResizeError(
    'FSRESIZE_DEVICE_CHANGED',
    `${id.path} now leads to ${now.realPath} (${now.majorMinor}), not to the device voe locked and inspected (${id.realPath}, ${id.majorMinor}): the name was given to another device meanwhile; ${outcome} — check which device to grow and retry`,
    details,
  );
}
