import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { compactHeap } from '../../../src/webhook/index.js';

/** An object only a WeakRef reaches once this returns (a WeakRef keeps its target until the current job ends). */
function unreachable(): WeakRef<object> {
  return new WeakRef({
    items: Array.from({ length: 200_000 }, (_, i) => ({ i, name: `object-${i}` })),
  });
}

describe('compactHeap', () => {
  it('collects what nothing reaches any more, in full and at once, and says how much heap was in use before and after', async () => {
    const ref = unreachable();
    await nextTurn();
    const result = compactHeap();
    assert.equal(ref.deref(), undefined, 'the unreachable object was collected');
    assert.ok(
      result.usedAfterBytes < result.usedBeforeBytes,
      `${result.usedAfterBytes} < ${result.usedBeforeBytes}`,
    );
    assert.ok(
      result.usedBeforeBytes - result.usedAfterBytes > 5 * 1024 * 1024,
      'the 200,000 objects (over 5 MiB) are gone',
    );
    assert.ok(result.ms >= 0);
  });

  it('leaves globalThis.gc as it found it (not exposed unless node ran with --expose-gc), call after call', async () => {
    const before = (globalThis as { gc?: unknown }).gc;
    compactHeap();
    compactHeap();
    assert.equal((globalThis as { gc?: unknown }).gc, before);
    const ref = unreachable();
    await nextTurn();
    compactHeap();
    assert.equal(ref.deref(), undefined, 'a later call still collects');
  });

  it('keeps what is still reachable', async () => {
    const kept = { items: Array.from({ length: 1000 }, (_, i) => ({ i })) };
    const ref = new WeakRef(kept);
    await nextTurn();
    compactHeap();
    assert.equal(ref.deref(), kept);
    assert.equal(kept.items.length, 1000);
  });
});
