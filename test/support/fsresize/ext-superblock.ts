/** Superblock fields a test may set; the rest are those of a clean, checked, never mounted filesystem. */
export interface ExtFields {
  bit64?: boolean;
  high?: number;
  magic?: number;
  state?: number;
  mountTime?: number;
  lastCheck?: number;
  lastCheckHi?: number;
  freeBlocks?: number;
  inodes?: number;
  freeInodes?: number;
  lastOrphan?: number;
  incompat?: number;
  roCompat?: number;
}

/** The 1024 bytes of an ext2/3/4 superblock with the fields the core reads (Linux Documentation/filesystems/ext4/super.rst). */
export function extSuperblock(
  blockCountLo: number,
  logBlockSize: number,
  options: ExtFields = {},
): Uint8Array {
  const bytes = new Uint8Array(1024);
  const view = new DataView(bytes.buffer);
  view.setUint32(0x0, options.inodes ?? 256, true);
  view.setUint32(0x4, blockCountLo, true);
  view.setUint32(0xc, options.freeBlocks ?? 0, true);
  view.setUint32(0x10, options.freeInodes ?? 245, true);
  view.setUint32(0x2c, options.mountTime ?? 0, true);
  view.setUint16(0x3a, options.state ?? 0x1, true);
  view.setUint32(0x40, options.lastCheck ?? 1_700_000_000, true);
  view.setUint8(0x277, options.lastCheckHi ?? 0);
  view.setUint32(0x18, logBlockSize, true);
  view.setUint16(0x38, options.magic ?? 0xef53, true);
  view.setUint32(0x60, (options.bit64 ? 0x80 : 0) | (options.incompat ?? 0), true);
  view.setUint32(0x64, options.roCompat ?? 0, true);
  view.setUint32(0xe8, options.lastOrphan ?? 0, true);
  view.setUint32(0x150, options.high ?? 0, true);
  return bytes;
}
