import { EXT_32BIT_MAX_BLOCKS } from './ext-grow-target.js';
import { formatBytePair } from './format-byte-pair.js';
import { formatBytes } from './format-bytes.js';
import type { Inspection } from '../model/inspection.js';
import type { GrowPlan } from '../model/grow-plan.js';
import { refusePlan } from './refuse-plan.js';

/**
 * An ext filesystem without the 64bit feature spans at most 2^32-1 blocks, and resize2fs refuses
 * a larger size, mounted or not, after any check ("New size too large to be expressed in 32
 * bits"): refused before anything runs, as no retry can succeed. Growing it to the most it can
 * address instead would report a volume as grown while part of it stays unusable.
 */
export function beyond32Bits(inspection: Inspection, targetBytes: number): GrowPlan | null {
  const { device, devicePath, filesystem, blockBytes } = inspection;
  if (
    inspection.ext64bit !== false ||
    blockBytes === null ||
    targetBytes <= EXT_32BIT_MAX_BLOCKS * blockBytes
  )
    return null;
  const most = EXT_32BIT_MAX_BLOCKS * blockBytes;
  const volume = 2 ** 32 * blockBytes;
  const extents =
    filesystem === 'ext4'
      ? ''
      : ' (resize2fs -b needs the extents feature: tune2fs -O extents first, which makes it ext4)';
  return refusePlan(
    'FSRESIZE_EXT_32BIT_LIMIT',
    `${filesystem} on ${device} cannot grow to ${formatBytePair(targetBytes, most)[0]}: without the 64bit feature it cannot address more than ${most} bytes (${formatBytes(most)}; 2^32-1 blocks of ${blockBytes} bytes), and resize2fs refuses to grow it further ("New size too large to be expressed in 32 bits"); nothing was changed — ` +
      `convert it to 64bit offline (unmounted: e2fsck -f ${devicePath}, then resize2fs -b ${devicePath}${extents}) and retry, or keep the volume at or below ${volume} bytes (${formatBytes(volume)})`,
  );
}
