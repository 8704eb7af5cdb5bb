import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../../src/webhook/wait-for.js';

describe('waitFor', () => {
  it('is true once the condition holds', async () => {
    let calls = 0;
    assert.equal(await waitFor(() => ++calls >= 3, 10_000, undefined, 1), true);
    assert.equal(calls, 3);
  });

  it('is false when the signal aborts, even without a deadline', async () => {
    const stop = new AbortController();
    const waiting = waitFor(() => false, Infinity, stop.signal, 60_000);
    stop.abort();
    assert.equal(await waiting, false);
  });

  it('is false after the timeout', async () => {
    assert.equal(await waitFor(() => false, 0, undefined, 1), false);
  });
});
