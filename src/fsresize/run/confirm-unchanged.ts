import type { BlockDeviceId, BlockDevices } from '../model/block-devices.js';
import { confirmSameDevice } from '../devices/confirm-same-device.js';
import { formatBytePair } from '../plan/format-byte-pair.js';
import { fsckExitText } from '../model/fsck-exit-meaning.js';
import { FsResizeError } from '../model/fsresize-error.js';
import type { Inspection, PrecheckRan } from '../model/inspection.js';

/** What was done when the tool `next` is not run after all: nothing, or only the check before it. */
function notRunOutcome(next: string, precheck: PrecheckRan | null): string {
  return precheck
    ? `${next} was not run; ${precheck.command.join(' ')} ran first (${fsckExitText(precheck.exitCode)})`
    : `nothing was changed (${next} was not run)`;
}

/**
 * Just before the tool `next` writes: the same device, and not smaller than inspected (it may
 * have been shrunk during a long check). FSRESIZE_DEVICE_CHANGED otherwise.
 */
export async function confirmUnchanged(
  devices: BlockDevices,
  id: BlockDeviceId,
  inspection: Inspection,
  next: string,
  precheck: PrecheckRan | null,
): Promise<void> {
  const outcome = notRunOutcome(next, precheck);
  const details = precheck ? { details: { precheck } } : {};
  await confirmSameDevice(devices, id, outcome, details);
  const bytes = await devices.sizeBytes(id);
  if (bytes >= inspection.deviceBytes) return;
  const [was, now] = formatBytePair(inspection.deviceBytes, bytes);
  throw new FsResizeError(
    'FSRESIZE_DEVICE_CHANGED',
    `${id.path} shrank from ${was} to ${now} since voe inspected it; ${outcome} — check the volume's size (was it shrunk, or is it another one?) and retry`,
    details,
  );
}
