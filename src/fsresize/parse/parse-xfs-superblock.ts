/** Size facts of an xfs filesystem's data section. */
export interface XfsGeometry {
  blockSize: number;
  dataBlocks: number;
  bytes: number;
}

/** The primary superblock is the first sector of the device. */
export const XFS_SUPERBLOCK_LENGTH = 512;

/**
 * Reads sb_blocksize (offset 4, big-endian u32) and sb_dblocks (offset 8, big-endian u64)
 * from an unmounted xfs's primary superblock (magic "XFSB"); these are what `xfs_io -c statfs`
 * reports as geom.bsize and geom.datablocks. Returns null when the bytes are not xfs.
 * Only for unmounted filesystems: a mounted xfs may not have written its new superblock yet.
 */
export function parseXfsSuperblock(superblock: Uint8Array): XfsGeometry | null {
  if (superblock.length < 16) return null;
  const view = new DataView(superblock.buffer, superblock.byteOffset, superblock.byteLength);
  if (view.getUint32(0, false) !== 0x58465342) return null;
  const blockSize = view.getUint32(4, false);
  const dataBlocks = Number(view.getBigUint64(8, false));
  if (blockSize === 0) return null;
  return { blockSize, dataBlocks, bytes: blockSize * dataBlocks };
}
