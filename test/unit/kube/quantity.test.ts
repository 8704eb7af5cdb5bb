import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareQuantities, formatBytes, isKubeError, KubeErrorCode, parseQuantity, parseQuantityCeil, parseQuantityValue, quantityEquals } from '../../../src/kube/index.js';

const valid: Array<[string, bigint]> = [
  ['0', 0n],
  ['1', 1n],
  ['10Gi', 10737418240n],
  ['1Ki', 1024n],
  ['1Mi', 1048576n],
  ['512Mi', 536870912n],
  ['1.5Gi', 1610612736n],
  ['0.5Gi', 536870912n],
  ['.5Ki', 512n],
  ['1.Ki', 1024n],
  ['2Ti', 2199023255552n],
  ['1Pi', 1125899906842624n],
  ['8Ei', 9223372036854775808n],
  ['1k', 1000n],
  ['500M', 500000000n],
  ['1G', 1000000000n],
  ['1T', 1000000000000n],
  ['1P', 1000000000000000n],
  ['1E', 1000000000000000000n],
  ['1e3', 1000n],
  ['1E3', 1000n],
  ['12e+2', 1200n],
  ['1.5e3', 1500n],
  ['+7', 7n],
  ['-1Gi', -1073741824n],
  ['12345678901234567891', 12345678901234567891n],
  ['123456789012345678901234567890Ei', 123456789012345678901234567890n * 1152921504606846976n],
];

test('parseQuantity: exact bytes for whole quantities', () => {
  for (const [input, want] of valid) {
    assert.equal(parseQuantity(input), want, input);
  }
});

test('parseQuantity rejects fractional byte counts with KUBE_QUANTITY_FRACTIONAL; parseQuantityCeil rounds up like Quantity.Value()', () => {
  for (const input of ['15e-1', '1500m', '100m', '1.5', '1n', '0.1Ki']) {
    assert.throws(() => parseQuantity(input), (e: unknown) => isKubeError(e, KubeErrorCode.QuantityFractional) && e.message.includes(input), input);
  }
  assert.equal(parseQuantityCeil('1500m'), 2n);
  assert.equal(parseQuantityCeil('100m'), 1n);
  assert.equal(parseQuantityCeil('15e-1'), 2n);
  assert.equal(parseQuantityCeil('0.1Ki'), 103n);
  assert.equal(parseQuantityCeil('2'), 2n);
  assert.equal(parseQuantityCeil('-1500m'), -1n);
});

test('parseQuantity: invalid input gives KUBE_QUANTITY_INVALID with the input and an example', () => {
  for (const input of ['', ' 1Gi', '1Gi ', 'Gi', '1gi', '1GB', '1KiB', '1.2.3', '1e', '1e3Gi', '1Ki1', 'abc', '--1', '1 Gi', '.', '1e1000', '0x10', 'NaN', 'Infinity']) {
    assert.throws(() => parseQuantity(input), (e: unknown) => {
      assert.ok(isKubeError(e, KubeErrorCode.QuantityInvalid), `${input}: ${String(e)}`);
      assert.match(e.message, /invalid Kubernetes quantity/);
      assert.ok(e.message.includes(JSON.stringify(input)));
      assert.match(e.message, /10Gi/);
      return true;
    }, input);
  }
  assert.throws(() => parseQuantity(undefined as unknown as string), (e: unknown) => isKubeError(e, KubeErrorCode.QuantityInvalid));
});

test('formatBytes: canonical binary SI when exact, plain digits otherwise', () => {
  const cases: Array<[bigint, string]> = [
    [0n, '0'], [1n, '1'], [1023n, '1023'], [1024n, '1Ki'], [1025n, '1025'], [1536n, '1536'],
    [3072n, '3Ki'], [1024000n, '1000Ki'], [1048576n, '1Mi'], [1610612736n, '1536Mi'], [10737418240n, '10Gi'],
    [1099511627776n, '1Ti'], [1152921504606846976n, '1Ei'], [2n * 1152921504606846976n * 1024n, '2048Ei'], [-2048n, '-2Ki'],
    [1000000000n, '1000000000'],
  ];
  for (const [n, want] of cases) assert.equal(formatBytes(n), want, String(n));
});

test('formatBytes and parseQuantity round-trip', () => {
  for (const n of [0n, 1n, 999n, 1024n, 4096n, 10737418240n, 1610612736n, 123456789n, 2n ** 70n]) {
    assert.equal(parseQuantity(formatBytes(n)), n);
  }
});

test('compareQuantities is exact across suffixes and fractions', () => {
  assert.equal(compareQuantities('1Gi', '1024Mi'), 0);
  assert.equal(compareQuantities('1G', '1Gi'), -1);
  assert.equal(compareQuantities('1Gi', '1G'), 1);
  assert.equal(compareQuantities('1500m', '1.5'), 0);
  assert.equal(compareQuantities('1e3', '1k'), 0);
  assert.equal(compareQuantities('10Gi', 10737418240n), 0);
  assert.equal(compareQuantities(10737418241n, '10Gi'), 1);
  assert.equal(compareQuantities('12345678901234567891', '12345678901234567890'), 1, 'beyond 2^53');
  assert.equal(compareQuantities('-1', '0'), -1);
  assert.ok(quantityEquals('0.5Gi', '512Mi'));
  assert.ok(!quantityEquals('0.5G', '512Mi'));
});

test('parseQuantityValue remembers recent values: shared, frozen, and still exact after the memory is cleared', () => {
  const first = parseQuantityValue('20Gi');
  assert.equal(parseQuantityValue('20Gi'), first, 'the same value object');
  assert.ok(Object.isFrozen(first));
  assert.throws(() => { (first as { num: bigint }).num = 1n; }, TypeError);
  // More distinct quantities than it keeps: every answer stays exact, and '20Gi' is not damaged.
  for (let i = 1; i <= 3000; i++) assert.deepEqual(parseQuantityValue(`${i}Mi`), { num: BigInt(i) * 1048576n, den: 1n });
  assert.deepEqual(parseQuantityValue('20Gi'), { num: 21474836480n, den: 1n });
  assert.deepEqual(parseQuantityValue('1.5'), { num: 3n, den: 2n });
  assert.throws(() => parseQuantityValue('20 GB'), (e: unknown) => isKubeError(e) && e.code === KubeErrorCode.QuantityInvalid, 'errors are not remembered as values');
  assert.throws(() => parseQuantityValue('20 GB'), (e: unknown) => isKubeError(e) && e.code === KubeErrorCode.QuantityInvalid);
});
