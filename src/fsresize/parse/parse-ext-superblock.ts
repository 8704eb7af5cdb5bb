/** Size facts of an ext2/3/4 filesystem, from its superblock. */
export interface ExtSuperblock {
  blockSize: number;
  blockCount: number;
  bytes: number;
  /**
   * Whether an offline resize2fs would refuse with "Please run 'e2fsck -f <device>' first"
   * (resize2fs's own rule, e2fsprogs 1.47 resize/main.c): errors recorded, not cleanly
   * unmounted, mounted after its last check, more free blocks than blocks or more free inodes
   * than inodes, an orphan inode list to process, or a journal that needs recovery.
   */
  checkNeeded: boolean;
  /**
   * The filesystem records errors (s_state's error bit, which `dumpe2fs -h` shows as "clean with
   * errors" or "not clean with errors"): the kernel or a tool found it damaged, e.g. a resize2fs
   * stopped midway; e2fsck clears it once it has repaired the filesystem.
   */
  errorsRecorded: boolean;
  /**
   * The 64bit feature (INCOMPAT_64BIT): without it block numbers are 32 bits wide, so the
   * filesystem can never span more than 2^32-1 blocks (resize2fs: "New size too large to be
   * expressed in 32 bits").
   */
  bit64: boolean;
  /**
   * The bigalloc feature (RO_COMPAT_BIGALLOC: blocks allocated in clusters): resize2fs refuses to
   * resize an unmounted bigalloc filesystem without its force option (e2fsprogs resize/main.c,
   * bigalloc_check, called on the offline path only).
   */
  bigalloc: boolean;
}

/** The superblock starts 1024 bytes into the device and is 1024 bytes long. */
export const EXT_SUPERBLOCK_OFFSET = 1024;
export const EXT_SUPERBLOCK_LENGTH = 1024;

const EXT_MAGIC = 0xef53;
const INCOMPAT_RECOVER = 0x4;
const INCOMPAT_64BIT = 0x80;
const RO_COMPAT_BIGALLOC = 0x200;
/** s_state bits: cleanly unmounted, errors detected. */
const STATE_VALID = 0x1;
const STATE_ERROR = 0x2;

/**
 * Reads the same two fields `dumpe2fs -h` prints as "Block count" and "Block size"
 * (Linux Documentation/filesystems/ext4/super.rst: s_blocks_count_lo at 0x4,
 * s_log_block_size at 0x18, s_magic at 0x38, s_feature_incompat at 0x60,
 * s_blocks_count_hi at 0x150 when INCOMPAT_64BIT), and what resize2fs looks at before an
 * offline resize: s_inodes_count at 0x0, s_free_blocks_count_lo at 0xC (hi at 0x158),
 * s_free_inodes_count at 0x10, s_mtime at 0x2C (hi byte at 0x275), s_state at 0x3A, s_lastcheck
 * at 0x40 (hi byte at 0x277), s_last_orphan at 0xE8 and INCOMPAT_RECOVER (needs_recovery) in
 * s_feature_incompat; and RO_COMPAT_BIGALLOC in s_feature_ro_compat at 0x64. Returns null when
 * the bytes are not an ext superblock.
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
  const is64 = (incompat & INCOMPAT_64BIT) !== 0;
  const freeBlocks = (is64 ? view.getUint32(0x158, true) : 0) * 2 ** 32 + view.getUint32(0xc, true);
  const mountTime = view.getUint8(0x275) * 2 ** 32 + view.getUint32(0x2c, true);
  const lastCheck = view.getUint8(0x277) * 2 ** 32 + view.getUint32(0x40, true);
  const state = view.getUint16(0x3a, true);
  const inodes = view.getUint32(0x0, true);
  const freeInodes = view.getUint32(0x10, true);
  const lastOrphan = view.getUint32(0xe8, true);
  const checkNeeded =
    (state & STATE_ERROR) !== 0 ||
    (state & STATE_VALID) === 0 ||
    lastCheck < mountTime ||
    freeBlocks > blockCount ||
    freeInodes > inodes ||
    lastOrphan !== 0 ||
    (incompat & INCOMPAT_RECOVER) !== 0;
  return {
    blockSize,
    blockCount,
    bytes: blockCount * blockSize,
    checkNeeded,
    errorsRecorded: (state & STATE_ERROR) !== 0,
    bit64: is64,
    bigalloc: (view.getUint32(0x64, true) & RO_COMPAT_BIGALLOC) !== 0,
  };
}
