import type { Inspection } from '../model/inspection.js';
import type { GrowPlan } from '../model/grow-plan.js';
import { refusePlan } from './refuse-plan.js';

/**
 * resize2fs refuses to resize an unmounted bigalloc filesystem without its force option
 * ("Resizing bigalloc file systems has not been fully tested. Proceed at your own risk! Use the
 * force option if you want to go ahead anyway."; e2fsprogs resize/main.c, bigalloc_check, called
 * on the offline path only): refused before anything runs, as voe never forces it. Online
 * growth, through the kernel, is not refused.
 */
export function bigallocOffline(inspection: Inspection): GrowPlan | null {
  if (inspection.extBigalloc !== true) return null;
  const { device, devicePath, filesystem } = inspection;
  return refusePlan(
    'FSRESIZE_EXT_BIGALLOC_OFFLINE',
    `${filesystem} on ${device} uses bigalloc and is not mounted; resize2fs refuses to grow an unmounted bigalloc filesystem unless forced ("Resizing bigalloc file systems has not been fully tested"), and voe never forces it; nothing was changed — ` +
      `mount it and grow it online (run voe again once it is mounted; kubelet's expandfs retries), or, only if you accept that risk, grow it offline yourself: e2fsck -f ${devicePath}, then resize2fs -f ${devicePath}`,
  );
}
