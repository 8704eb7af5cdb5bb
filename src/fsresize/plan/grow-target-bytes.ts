import { extGrowTarget } from './ext-grow-target.js';
import type { Inspection } from '../model/inspection.js';

/** What growTargetBytes reads of an inspection. */
export type GrowTargetFacts = Pick<
  Inspection,
  'filesystem' | 'deviceBytes' | 'blockBytes' | 'extPageBytes' | 'ext64bit'
>;

/**
 * How large the grow tool can make the filesystem on this device: for ext, the device rounded
 * down to whole pages when the page is larger than the block (what resize2fs does, see
 * extGrowTarget; it may exceed what an ext filesystem without the 64bit feature can address,
 * which planGrow refuses); for the others, the device.
 */
export function growTargetBytes(inspection: GrowTargetFacts): number {
  const { filesystem, deviceBytes, blockBytes, extPageBytes, ext64bit } = inspection;
  const ext = filesystem === 'ext2' || filesystem === 'ext3' || filesystem === 'ext4';
  return ext && blockBytes !== null
    ? extGrowTarget(deviceBytes, blockBytes, extPageBytes ?? blockBytes, ext64bit !== false)
    : deviceBytes;
}
