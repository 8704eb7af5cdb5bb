import { describe, it } from 'mocha';
import { assert } from 'chai';
import { ApiException } from '@kubernetes/client-node';
import {
  afterFailure,
  afterWatch,
  FIRST_REFLECTOR_STATE,
  type ReflectorState,
} from '../../../src/kube/reflector-step.js';

const BASE_MS = 500;
const watching: ReflectorState = { failures: 0, needList: false, lastGone: false };
const failing: ReflectorState = { failures: 3, needList: true, lastGone: false };
const afterGone: ReflectorState = { failures: 1, needList: true, lastGone: true };

function status(code: number, reason: string): ApiException<string> {
  return new ApiException(
    code,
    'watch',
    JSON.stringify({ kind: 'Status', code, reason, message: reason }),
    {},
  );
}

describe('reflector steps (the informer loop, pure)', () => {
  it('starts by listing, with no failures', () => {
    assert.deepStrictEqual(FIRST_REFLECTOR_STATE, {
      failures: 0,
      needList: true,
      lastGone: false,
    });
  });

  describe('afterWatch', () => {
    const cases: Array<{
      title: string;
      state: ReflectorState;
      end: Parameters<typeof afterWatch>[1];
      next: ReflectorState;
      failed: boolean;
      pauseMs: number;
    }> = [
      {
        title: 'a watch that lasted ends the failures, no pause',
        state: { ...failing, needList: false },
        end: { outcome: 'closed', events: 0, elapsedMs: 300_000 },
        next: watching,
        failed: false,
        pauseMs: 0,
      },
      {
        title: 'a short watch with events ends the failures, then pauses the base delay',
        state: { ...failing, needList: false },
        end: { outcome: 'closed', events: 2, elapsedMs: 40 },
        next: watching,
        failed: false,
        pauseMs: BASE_MS,
      },
      {
        title: 'a watch closed at once without events is a failure and lists again',
        state: watching,
        end: { outcome: 'closed', events: 0, elapsedMs: 999 },
        next: { failures: 1, needList: true, lastGone: false },
        failed: true,
        pauseMs: 0,
      },
      {
        title: 'a first 410 Gone lists again without counting a failure',
        state: watching,
        end: { outcome: 'gone', events: 5, elapsedMs: 10_000 },
        next: { failures: 0, needList: true, lastGone: true },
        failed: false,
        pauseMs: 0,
      },
      {
        title: 'a second 410 Gone in a row counts a failure (backoff)',
        state: { ...afterGone, needList: false },
        end: { outcome: 'gone', events: 0, elapsedMs: 10 },
        next: { failures: 2, needList: true, lastGone: true },
        failed: false,
        pauseMs: 0,
      },
    ];
    for (const { title, state, end, next, failed, pauseMs } of cases) {
      it(title, () => {
        const step = afterWatch(state, end, BASE_MS);
        assert.deepStrictEqual(step.state, next);
        assert.strictEqual(step.failure !== undefined, failed);
        assert.strictEqual(step.pauseMs, pauseMs);
      });
    }

    it('names the very short watch in its failure', () => {
      const step = afterWatch(watching, { outcome: 'closed', events: 0, elapsedMs: 0 }, BASE_MS);
      assert.match(String(step.failure?.error), /watch closed immediately without events/);
    });
  });

  describe('afterFailure', () => {
    it('any error is a failure that lists again and ends a run of 410s', () => {
      const error = new Error('connection reset');
      const step = afterFailure(afterGone, error, false);
      assert.deepStrictEqual(step.state, { failures: 2, needList: true, lastGone: false });
      assert.strictEqual(step.failure?.error, error);
      assert.strictEqual(step.pauseMs, 0);
    });

    it('a 404 with notServedAsEmpty is a failure that lists again (the list finds out)', () => {
      const notFound = status(404, 'NotFound');
      const step = afterFailure(afterGone, notFound, true);
      assert.deepStrictEqual(step.state, { failures: 2, needList: true, lastGone: false });
      assert.strictEqual(step.failure?.error, notFound);
    });

    it('a first 410 Gone lists again without a failure; a second one is a failure', () => {
      const gone = status(410, 'Expired');
      const first = afterFailure(watching, gone, false);
      assert.deepStrictEqual(first.state, { failures: 0, needList: true, lastGone: true });
      assert.isUndefined(first.failure);
      const second = afterFailure(first.state, gone, false);
      assert.deepStrictEqual(second.state, { failures: 1, needList: true, lastGone: true });
      assert.strictEqual(second.failure?.error, gone);
    });

    it('does not change the state it is given', () => {
      const state = { ...watching };
      afterFailure(state, new Error('x'), false);
      afterWatch(state, { outcome: 'gone', events: 0, elapsedMs: 0 }, BASE_MS);
      assert.deepStrictEqual(state, watching);
    });
  });
});
