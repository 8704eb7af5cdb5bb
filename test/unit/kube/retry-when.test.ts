import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { retryWhen } from '../../../src/kube/index.js';

const transient = Object.assign(new Error('injected 503'), { code: 503 });
const forbidden = Object.assign(new Error('injected 403'), { code: 403 });
const isTransient = (error: unknown): boolean => (error as { code?: number }).code === 503;

it('retryWhen retries what the predicate accepts, then answers; anything else is thrown at once', async () => {
  let calls = 0;
  assert.strictEqual(
    await retryWhen(
      isTransient,
      async () => {
        if (++calls < 3) throw transient;
        return 'ok';
      },
      { minTimeoutMs: 1, maxTimeoutMs: 2 },
    ),
    'ok',
  );
  assert.strictEqual(calls, 3);
  calls = 0;
  await expectRejection(
    retryWhen(
      isTransient,
      async () => {
        calls++;
        throw forbidden;
      },
      { minTimeoutMs: 1 },
    ),
    { name: 'Error', message: forbidden.message, code: forbidden.code },
  );
  assert.strictEqual(calls, 1);
  calls = 0;
  await expectRejection(
    retryWhen(
      isTransient,
      async () => {
        calls++;
        throw transient;
      },
      { retries: 2, minTimeoutMs: 1, maxTimeoutMs: 2 },
    ),
    { name: 'Error', message: transient.message, code: transient.code },
  );
  assert.strictEqual(calls, 3, 'the first try and two retries');
});

it("retryWhen stops retrying at once when its signal aborts, with the abort's reason", async () => {
  const controller = new AbortController();
  let calls = 0;
  const started = Date.now();
  const retrying = retryWhen(
    isTransient,
    async () => {
      calls++;
      if (calls === 2) controller.abort(new Error('stopped'));
      throw transient;
    },
    { retries: 10, minTimeoutMs: 200, maxTimeoutMs: 200, signal: controller.signal },
  );
  await expectRejection(retrying, /^Error: stopped$/);
  assert.strictEqual(calls, 2, 'no try after the abort');
  assert.ok(Date.now() - started < 1_500, 'not the ten backoffs of 200 to 400 ms');
});
