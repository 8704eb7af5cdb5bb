import { describe, it } from 'mocha';
import { assert } from 'chai';
import { EventEmitter } from 'node:events';
import { falseOnError, msUntil, waitUntil } from '../../../src/wait/index.js';
import { expectRejection } from '../../support/expect-error.js';

describe('waitUntil', () => {
  it('is ok once the check holds, checking at once and then after each pause', async () => {
    let calls = 0;
    assert.strictEqual(
      await waitUntil(() => ++calls >= 3, { timeoutMs: 10_000, intervalMs: 1 }),
      'ok',
    );
    assert.strictEqual(calls, 3);
  });

  it('takes an async check', async () => {
    let calls = 0;
    const outcome = await waitUntil(async () => ++calls >= 2, { timeoutMs: 10_000, intervalMs: 1 });
    assert.strictEqual(outcome, 'ok');
    assert.strictEqual(calls, 2);
  });

  it('is aborted when the signal aborts, even without a deadline', async () => {
    const stop = new AbortController();
    const waiting = waitUntil(() => false, {
      timeoutMs: Infinity,
      intervalMs: 60_000,
      signal: stop.signal,
    });
    stop.abort();
    assert.strictEqual(await waiting, 'aborted');
  });

  it('is timeout after the timeout', async () => {
    assert.strictEqual(await waitUntil(() => false, { timeoutMs: 0, intervalMs: 1 }), 'timeout');
  });

  it('checks once even when no time is left', async () => {
    let calls = 0;
    assert.strictEqual(
      await waitUntil(
        () => {
          calls += 1;
          return false;
        },
        { timeoutMs: 0, intervalMs: 1 },
      ),
      'timeout',
    );
    assert.strictEqual(calls, 1);
  });

  it('ends with the error a check throws', async () => {
    await expectRejection(
      waitUntil(
        () => {
          throw new Error('broken');
        },
        { timeoutMs: 10_000 },
      ),
      /broken/,
    );
  });

  it('with falseOnError, a failing check means "not yet"', async () => {
    let calls = 0;
    const outcome = await waitUntil(
      falseOnError(async () => {
        calls += 1;
        if (calls < 3) throw new Error('not up yet');
        return true;
      }),
      { timeoutMs: 10_000, intervalMs: 1 },
    );
    assert.strictEqual(outcome, 'ok');
    assert.strictEqual(calls, 3);
  });
});

describe('msUntil', () => {
  it('is 0 once the deadline has passed', () => {
    assert.strictEqual(msUntil(Date.now() - 1000), 0);
  });

  it('is the time left before it', () => {
    const left = msUntil(Date.now() + 60_000);
    assert.isAbove(left, 50_000);
    assert.isAtMost(left, 60_000);
  });
});

describe('waitUntil and the signals it is given', () => {
  it("adds no listener that stays on the caller's signal, however many pauses", async () => {
    const stop = new AbortController();
    let calls = 0;
    const outcome = await waitUntil(() => ++calls >= 30, {
      timeoutMs: 10_000,
      intervalMs: 1,
      signal: stop.signal,
    });
    assert.strictEqual(outcome, 'ok');
    assert.isAtMost(EventEmitter.getEventListeners(stop.signal, 'abort').length, 1);
  });
});
