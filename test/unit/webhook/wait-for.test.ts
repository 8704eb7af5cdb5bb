import { describe, it } from 'mocha';
import { assert } from 'chai';
import { waitFor } from '../../../src/webhook/wait-for.js';

describe('waitFor', () => {
  it('is true once the condition holds', async () => {
    let calls = 0;
    assert.isTrue(await waitFor(() => ++calls >= 3, 10_000, undefined, 1));
    assert.strictEqual(calls, 3);
  });

  it('is false when the signal aborts, even without a deadline', async () => {
    const stop = new AbortController();
    const waiting = waitFor(() => false, Infinity, stop.signal, 60_000);
    stop.abort();
    assert.isFalse(await waiting);
  });

  it('is false after the timeout', async () => {
    assert.isFalse(await waitFor(() => false, 0, undefined, 1));
  });
});
