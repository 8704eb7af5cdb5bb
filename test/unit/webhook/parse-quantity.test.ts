import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseQuantity, QuantityInvalidError, storageRequest } from '../../../src/webhook/index.js';

describe('parseQuantity', () => {
  const table: Array<[string, bigint]> = [
    ['0', 0n], ['1', 1n], ['10Gi', 10n * 2n ** 30n], ['20Gi', 21474836480n], ['1Ki', 1024n], ['1Mi', 1048576n],
    ['1Ti', 2n ** 40n], ['1Pi', 2n ** 50n], ['1Ei', 2n ** 60n], ['1k', 1000n], ['1M', 1000000n], ['1G', 1000000000n],
    ['1T', 10n ** 12n], ['1P', 10n ** 15n], ['1E', 10n ** 18n], ['1.5Gi', 1610612736n], ['1.5k', 1500n], ['0.5Ki', 512n],
    ['100m', 1n], ['1500m', 2n], ['1000m', 1n], ['1e3', 1000n], ['1E3', 1000n], ['2e-1', 1n], ['12e+2', 1200n], ['.5k', 500n],
    ['5.', 5n], ['+3Gi', 3n * 2n ** 30n], ['-1Ki', -1024n], ['10737418240', 10737418240n], ['1n', 1n], ['1u', 1n],
    ['123456789012345678901234567890', 123456789012345678901234567890n],
  ];
  for (const [text, expected] of table) it(`${text} = ${expected}`, () => assert.equal(parseQuantity(text), expected));

  for (const text of ['', 'Gi', '1GB', '1 Gi', '1.2.3', 'abc', '1e', '--1', '1gi', '.', '1e1Gi']) {
    it(`rejects ${JSON.stringify(text)}`, () => assert.throws(() => parseQuantity(text), QuantityInvalidError));
  }

  it('the binary suffix equals the multiplied integer (property)', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.constantFrom('Ki', 'Mi', 'Gi', 'Ti'), (n, suffix) => {
      const factor = { Ki: 1024n, Mi: 1024n ** 2n, Gi: 1024n ** 3n, Ti: 1024n ** 4n }[suffix];
      return parseQuantity(`${n}${suffix}`) === n * factor;
    }));
  });

  it('storageRequest reads requests.storage', () => {
    assert.equal(storageRequest({ storage: '1Gi', cpu: '1' }), 1073741824n);
    assert.equal(storageRequest({ cpu: '1' }), undefined);
    assert.equal(storageRequest(undefined), undefined);
  });
});
