import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** What one compactHeap call did: the heap in use before and after it, and how long it held the event loop. */
export interface HeapCompaction {
  usedBeforeBytes: number;
  usedAfterBytes: number;
  ms: number;
}

/**
 * One full garbage collection, now. `voe serve` runs it once its caches have first listed, before
 * the API server's reviews arrive: listing thousands of objects leaves tens of MiB of garbage
 * (the list pages' JSON, VMIs before leanVmi) in the old generation, which V8 collects by itself
 * only when the heap reaches its limit, under load. With 27,020 listed objects it took the heap in
 * use from 129–156 to 113 MiB; in the webhook benchmark, such garbage made the young collections
 * of a busy webhook promote ten times more of each review (docs/performance.md, session 24).
 *
 * Uses V8's `gc` (node --expose-gc) when exposed; otherwise exposes it for this one call and hides
 * it again, so `globalThis.gc` is unchanged.
 */
export function compactHeap(): HeapCompaction {
  const usedBeforeBytes = getHeapStatistics().used_heap_size;
  const started = performance.now();
  fullCollection();
  return {
    usedBeforeBytes,
    usedAfterBytes: getHeapStatistics().used_heap_size,
    ms: performance.now() - started,
  };
}

function fullCollection(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') {
    exposed();
    return;
  }
  setFlagsFromString('--expose-gc');
  try {
    (runInNewContext('gc') as () => void)();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
