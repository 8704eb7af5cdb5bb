/** What `dumpe2fs -h DEVICE` prints of an ext filesystem's size. */
export interface Dumpe2fsHeader {
  blockCount: number;
  blockBytes: number;
  bytes: number;
  /** "64bit" among its "Filesystem features". */
  ext64bit: boolean;
}

/**
 * The "Block count", "Block size" and "Filesystem features" lines of `dumpe2fs -h` (e2fsprogs
 * lib/e2p/ls.c list_super2, the same superblock fields parseExtSuperblock reads); null when a
 * size line is missing. Pure.
 */
export function parseDumpe2fsHeader(stdout: string): Dumpe2fsHeader | null {
  const number = (label: string): number | null => {
    const value = new RegExp(`^${label}:\\s+(\\d+)\\s*$`, 'm').exec(stdout)?.[1];
    return value === undefined || !Number.isSafeInteger(Number(value)) ? null : Number(value);
  };
  const blockCount = number('Block count');
  const blockBytes = number('Block size');
  if (blockCount === null || blockBytes === null || blockBytes === 0) return null;
  const features = /^Filesystem features:\s+(.*)$/m.exec(stdout)?.[1] ?? '';
  return {
    blockCount,
    blockBytes,
    bytes: blockCount * blockBytes,
    ext64bit: features.split(/\s+/).includes('64bit'),
  };
}
