import { readFile } from 'node:fs/promises';
import { parseMountinfo, type MountEntry } from './parse-mountinfo.js';

/** The port that lists what is mounted on this node. */
export interface MountTable {
  list(): Promise<MountEntry[]>;
}

/** The production MountTable: reads a mountinfo file (by default /proc/self/mountinfo) on every call. */
export function createMountinfoTable(path = '/proc/self/mountinfo'): MountTable {
  return {
    async list() {
      return parseMountinfo(await readFile(path, 'utf8'));
    },
  };
}
