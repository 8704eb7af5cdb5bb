import type { XfsGeometry } from './parse-xfs-superblock.js';

/** Parses `xfs_io -c statfs <mountpoint>`: geom.bsize x geom.datablocks; null when either is missing. */
export function parseXfsStatfs(stdout: string): XfsGeometry | null {
  const blockSize = /^geom\.bsize = (\d+)$/m.exec(stdout)?.[1];
  const dataBlocks = /^geom\.datablocks = (\d+)$/m.exec(stdout)?.[1];
  if (blockSize === undefined || dataBlocks === undefined) return null;
  const bsize = Number(blockSize);
  const blocks = Number(dataBlocks);
  return { blockSize: bsize, dataBlocks: blocks, bytes: bsize * blocks };
}
