import { describe, it } from 'mocha';
import { assert } from 'chai';
import { eventually } from '../../support/eventually.js';
import { expectRejection } from '../../support/expect-error.js';

describe('eventually (the tests’ one wait for a condition)', () => {
  it('resolves once the check holds, a check that throws counting as not yet', async () => {
    let calls = 0;
    await eventually(
      () => {
        calls += 1;
        if (calls === 1) throw new Error('not there');
        return calls >= 3;
      },
      5_000,
      'the third call',
      { intervalMs: 1 },
    );
    assert.strictEqual(calls, 3);
  });

  it('times out saying what it waited for and the last error', async () => {
    await expectRejection(
      eventually(
        () => {
          throw new Error('still missing');
        },
        50,
        'the file',
        { intervalMs: 5 },
      ),
      /^Error: timed out waiting for the file: Error: still missing$/,
    );
  });

  it('gives up at once when giveUp says why, after a last check', async () => {
    let calls = 0;
    const started = Date.now();
    await expectRejection(
      eventually(
        () => {
          calls += 1;
          return false;
        },
        30_000,
        'the log line',
        { giveUp: () => (calls >= 2 ? 'the process exited: boom' : undefined) },
      ),
      /^Error: gave up waiting for the log line: the process exited: boom$/,
    );
    assert.strictEqual(calls, 2);
    assert.isBelow(Date.now() - started, 5_000);
  });

  it('a check that holds wins over giveUp', async () => {
    await eventually(() => true, 1_000, 'it', { giveUp: () => 'gone' });
  });
});
