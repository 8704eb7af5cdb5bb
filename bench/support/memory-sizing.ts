/**
 * The chart values a long-running command's measured footprint calls for (docs/performance.md,
 * "Memory of each command"): its V8 old generation twice the heap it uses at scale (a relist holds
 * the old cache while the new list arrives), its memory request the peak RSS at scale (the
 * initial list included), its limit the request plus the room the heap may still grow. Rounded up
 * to 16 MiB (heap, request) and 32 MiB (limit); the old generation no smaller than 64 MiB (below
 * it V8 collects all the time for a burst of work).
 */
export interface MemorySizing {
  /** --max-old-space-size in MiB; undefined when the heap was not read (the limit is then the request). */
  maxOldSpaceMiB?: number;
  requestMiB: number;
  limitMiB: number;
}

const MIN_OLD_SPACE_MIB = 64;

const roundUp = (value: number, step: number): number => Math.ceil(value / step) * step;

export function sizeFromFootprint(atScale: {
  peakMiB: number;
  heapUsedMiB?: number;
}): MemorySizing {
  const requestMiB = roundUp(atScale.peakMiB, 16);
  if (atScale.heapUsedMiB === undefined) return { requestMiB, limitMiB: roundUp(requestMiB, 32) };
  const maxOldSpaceMiB = Math.max(MIN_OLD_SPACE_MIB, roundUp(atScale.heapUsedMiB * 2, 16));
  return {
    maxOldSpaceMiB,
    requestMiB,
    limitMiB: roundUp(requestMiB + (maxOldSpaceMiB - atScale.heapUsedMiB), 32),
  };
}
