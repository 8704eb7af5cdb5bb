import { stat, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * What virt-launcher counts as usable for a disk.img (KubeVirt v1.8 virtwrap/manager.go, the
 * usable size possibleGuestSize takes): the file's allocated bytes (st_blocks x 512) plus the
 * free space of the filesystem holding it for an unprivileged writer (statfs f_bavail x f_bsize).
 * A thin adapter over stat(2) and statfs(2).
 */
export async function usableSpace(diskImage: string): Promise<bigint> {
  const file = await stat(diskImage, { bigint: true });
  const fs = await statfs(dirname(diskImage), { bigint: true });
  return file.blocks * 512n + fs.bavail * fs.bsize;
}
