/** Size facts of an ext2/3/4 filesystem, from its superblock. */
export interface ExtSuperblock {
  blockSize: number;
  blockCount: number;
  bytes: number;
}

/** The superblock starts 1024 bytes into the device and is 1024 bytes long. */
export const EXT_SUPERBLOCK_OFFSET = 1024;
export const EXT_SUPERBLOCK_LENGTH = 1024;

const EXT_MAGIC = 0xef53;
const INCOMPAT_64BIT = 0x80;

/**
 * Reads the same two fields `dumpe2fs -h` prints as "Block count" and "Block size"
 * (Linux Documentation/filesystems/ext4/super.rst: s_blocks_count_lo at 0x4,
 * s_log_block_size at 0x18, s_magic at 0x38, s_feature_incompat at 0x60,
 * s_blocks_count_hi at 0x150 when INCOMPAT_64BIT). Returns null when the bytes are not an
 * ext superblock.
 */
export function parseExtSuperblock(superblock: Uint8Array): ExtSuperblock | null {
  if (superblock.length < EXT_SUPERBLOCK_LENGTH) return null;
  const view = new DataView(superblock.buffer, superblock.byteOffset, superblock.byteLength);
  if (view.getUint16(0x38, true) !== EXT_MAGIC) return null;
  const logBlockSize = view.getUint32(0x18, true);
  if (logBlockSize > 6) return null;
  const blockSize = 1024 * 2 ** logBlockSize;
  const incompat = view.getUint32(0x60, true);
  const high = (incompat & INCOMPAT_64BIT) !== 0 ? view.getUint32(0x150, true) : 0;
  const blockCount = high * 2 ** 32 + view.getUint32(0x4, true);
  return { blockSize, blockCount, bytes: blockCount * blockSize };
}
