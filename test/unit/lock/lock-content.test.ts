import { it } from 'mocha';
import { assert } from 'chai';
import { formatLockContent, parseLockContent } from '../../../src/lock/lock-content.js';

it('lock content round-trips: pid, token, namespace, start time, helper', () => {
  const full = {
    holder: { pid: 12, start: 345 },
    token: 'tok',
    namespace: 'pid:[4026531836]',
    helper: { pid: 67, start: 890 },
  };
  assert.strictEqual(formatLockContent(full), '12 tok pid:[4026531836] start=345 helper=67:890\n');
  assert.deepStrictEqual(parseLockContent(formatLockContent(full)), full);
  assert.deepStrictEqual(
    parseLockContent(formatLockContent({ holder: { pid: 12 }, token: 'tok' })),
    {
      holder: { pid: 12 },
      token: 'tok',
    },
  );
  assert.deepStrictEqual(
    parseLockContent('12 tok start=5 helper=7\n'),
    { holder: { pid: 12, start: 5 }, token: 'tok', helper: { pid: 7 } },
    'no namespace (no /proc): not mistaken for one',
  );
});

it('lock content of older voe ("<pid> <token> [<namespace>]") still reads; garbage does not', () => {
  assert.deepStrictEqual(parseLockContent('12 tok pid:[1]\n'), {
    holder: { pid: 12 },
    token: 'tok',
    namespace: 'pid:[1]',
  });
  assert.deepStrictEqual(parseLockContent('12 tok\n'), { holder: { pid: 12 }, token: 'tok' });
  for (const bad of [
    '',
    '\n',
    'x tok',
    '0 tok',
    '-3 tok',
    '12 tok helper=x',
    '12 tok start=y',
    '12:5 tok',
  ])
    assert.isNull(parseLockContent(bad), JSON.stringify(bad));
});
