import type { LoopBacking } from '../model/block-devices.js';
import type { LoopBackingTarget, LoopEntry } from './loop-table.js';

/** A loop device's backing file, as findDeviceOpeners looks for it: the loop device and the path the kernel names. */
export interface BackingFileOf {
  majorMinor: string;
  path: string;
}

/** What lies below a device that is a loop device (followLoopBackings). */
export interface LoopChain {
  /** The backing of each loop device met, top first (`busy` still to be looked at). */
  backing: LoopBacking[];
  /** The backing devices ("major:minor"): looked at as the device is (who has them open, what is stacked on them). */
  devices: string[];
  /** The backing files, by identity ("<st_dev>:<st_ino>"). */
  files: Map<string, BackingFileOf>;
  /** The loop devices of the chain and those sharing a backing with one of them: already named, never "stacked". */
  loops: Set<string>;
}

/** Longest chain of loop devices over loop devices followed. */
const MAX_DEPTH = 16;

function sameTarget(a: LoopBackingTarget, b: LoopBackingTarget): boolean {
  if (a.kind === 'file' && b.kind === 'file') return a.key === b.key;
  if (a.kind === 'device' && b.kind === 'device') return a.majorMinor === b.majorMinor;
  return false; // what cannot be seen is never taken for the same
}

/**
 * From the devices `start` ("major:minor": the device and its whole disk), down through every
 * loop device among them to its backing file or device, and from a backing device that is itself
 * a loop device further down (or the whole disk of a backing partition): each backing with the
 * other loop devices over the same file or device (they show the same data). Pure: `table` is
 * the node's loop devices (readLoopTable), `diskOf` the whole disk of a partition, else null.
 */
export function followLoopBackings(
  start: readonly string[],
  table: readonly LoopEntry[],
  diskOf: (majorMinor: string) => string | null,
): LoopChain {
  const seen = new Set(start);
  const queue = [...start];
  const chain: LoopChain = { backing: [], devices: [], files: new Map(), loops: new Set() };
  while (queue.length > 0 && chain.backing.length < MAX_DEPTH) {
    const number = queue.shift() as string;
    const loop = table.find((entry) => entry.majorMinor === number);
    if (loop?.backing == null) continue;
    const { path, target } = loop.backing;
    const sharedWith = table
      .filter(
        (entry) =>
          entry !== loop &&
          !seen.has(entry.majorMinor) &&
          entry.backing !== null &&
          sameTarget(entry.backing.target, target),
      )
      .map((entry) => entry.name);
    chain.loops.add(loop.name);
    for (const name of sharedWith) chain.loops.add(name);
    chain.backing.push({
      loop: loop.name,
      path,
      kind: target.kind,
      ...(target.kind === 'device' ? { majorMinor: target.majorMinor } : {}),
      sharedWith,
      busy: false,
    });
    if (target.kind === 'file') chain.files.set(target.key, { majorMinor: loop.majorMinor, path });
    if (target.kind === 'device') {
      for (const below of [target.majorMinor, diskOf(target.majorMinor)]) {
        if (below === null || seen.has(below)) continue;
        seen.add(below);
        chain.devices.push(below);
        queue.push(below);
      }
    }
  }
  return chain;
}
