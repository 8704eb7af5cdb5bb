/**
 * The size `xfs_growfs -d` reports having grown the data section to, in bytes: it prints "data
 * blocks changed from OLD to NEW" with both counts read back from the kernel's geometry
 * (XFS_IOC_FSGEOMETRY, which `xfs_io -c statfs` also reports as geom.datablocks) before and after
 * the grow, in the C locale the runner sets. Null, so the caller measures instead, when the line is
 * missing (nothing changed: "data size unchanged, skipping"; another wording) or when OLD is not the
 * size voe measured before (the filesystem changed in between: only a fresh measurement tells).
 */
export function xfsGrowfsAfterBytes(
  stdout: string,
  beforeBytes: number,
  blockBytes: number | null,
): number | null {
  const found = /^data blocks changed from (\d+) to (\d+)$/m.exec(stdout);
  if (!found || blockBytes === null || !(blockBytes > 0)) return null;
  const fromBytes = Number(found[1]) * blockBytes;
  const toBytes = Number(found[2]) * blockBytes;
  return fromBytes === beforeBytes && Number.isSafeInteger(toBytes) ? toBytes : null;
}
