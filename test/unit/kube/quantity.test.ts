import { it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import {
  compareQuantities,
  formatBytes,
  formatQuantityValue,
  isKubeError,
  KubeErrorCode,
  parseQuantity,
  parseQuantityCeil,
  parseQuantityValue,
  roundUpToMilli,
} from '../../../src/kube/index.js';
import { MAX_BINARY_QUANTITY, quantityEquals } from '../../../src/kube/quantity.js';

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
  ['7Ei', 7n * 1152921504606846976n],
  ['8Ei', 9223372036854775807n], // apimachinery caps binary-suffix values at 2^63-1
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
  ['123456789012345678901234567890Ei', 9223372036854775807n],
  ['123456789012345678901234567890', 123456789012345678901234567890n], // decimal: not capped
  ['1e102', 10n ** 102n],
  ['100e100', 10n ** 102n],
];

it('parseQuantity: exact bytes for whole quantities', () => {
  for (const [input, want] of valid) {
    assert.strictEqual(parseQuantity(input), want, input);
  }
});

it('parseQuantity rejects fractional byte counts with KUBE_QUANTITY_FRACTIONAL; parseQuantityCeil rounds up like Quantity.Value()', () => {
  for (const input of ['15e-1', '1500m', '100m', '1.5', '1n', '0.1Ki']) {
    expectThrow(
      () => parseQuantity(input),
      (e: unknown) => isKubeError(e, KubeErrorCode.QuantityFractional) && e.message.includes(input),
      input,
    );
  }
  assert.strictEqual(parseQuantityCeil('1500m'), 2n);
  assert.strictEqual(parseQuantityCeil('100m'), 1n);
  assert.strictEqual(parseQuantityCeil('15e-1'), 2n);
  assert.strictEqual(parseQuantityCeil('0.1Ki'), 103n);
  assert.strictEqual(parseQuantityCeil('2'), 2n);
  assert.strictEqual(parseQuantityCeil('-1500m'), -2n, 'away from zero, as Value()');
  assert.strictEqual(parseQuantityCeil('-.5'), -1n);
  assert.strictEqual(parseQuantityCeil('1e19'), 10n ** 19n, 'no int64 wrap-around');
});

it('parseQuantity: invalid input gives KUBE_QUANTITY_INVALID with the input and an example', () => {
  for (const input of [
    '',
    ' 1Gi',
    '1Gi ',
    'Gi',
    '1gi',
    '1GB',
    '1KiB',
    '1.2.3',
    '1e',
    '1e3Gi',
    '1Ki1',
    'abc',
    '--1',
    '1 Gi',
    '.',
    '+',
    'e3',
    '-M',
    '1e+',
    '1e9223372036854775808',
    '0x10',
    'NaN',
    'Infinity',
  ]) {
    expectThrow(
      () => parseQuantity(input),
      (e: unknown) => {
        assert.ok(isKubeError(e, KubeErrorCode.QuantityInvalid), `${input}: ${String(e)}`);
        assert.match(e.message, /invalid Kubernetes quantity/);
        assert.ok(e.message.includes(JSON.stringify(input)));
        assert.match(e.message, /10Gi/);
        return true;
      },
      input,
    );
  }
  expectThrow(
    () => parseQuantity(undefined as unknown as string),
    (e: unknown) => isKubeError(e, KubeErrorCode.QuantityInvalid),
  );
});

it('formatBytes: canonical binary SI when exact, plain digits otherwise', () => {
  const cases: Array<[bigint, string]> = [
    [0n, '0'],
    [1n, '1'],
    [1023n, '1023'],
    [1024n, '1Ki'],
    [1025n, '1025'],
    [1536n, '1536'],
    [3072n, '3Ki'],
    [1024000n, '1000Ki'],
    [1048576n, '1Mi'],
    [1610612736n, '1536Mi'],
    [10737418240n, '10Gi'],
    [1099511627776n, '1Ti'],
    [1152921504606846976n, '1Ei'],
    [7n * 1152921504606846976n, '7Ei'],
    [2n * 1152921504606846976n * 1024n, '2361183241434822606848'],
    [2n ** 63n, '9223372036854775808'],
    [-2048n, '-2Ki'],
    [1000000000n, '1000000000'],
  ];
  for (const [n, want] of cases) assert.strictEqual(formatBytes(n), want, String(n));
});

it('formatBytes and parseQuantity round-trip', () => {
  for (const n of [0n, 1n, 999n, 1024n, 4096n, 10737418240n, 1610612736n, 123456789n, 2n ** 70n]) {
    assert.strictEqual(parseQuantity(formatBytes(n)), n);
  }
});

it('compareQuantities is exact across suffixes and fractions', () => {
  assert.strictEqual(compareQuantities('1Gi', '1024Mi'), 0);
  assert.strictEqual(compareQuantities('1G', '1Gi'), -1);
  assert.strictEqual(compareQuantities('1Gi', '1G'), 1);
  assert.strictEqual(compareQuantities('1500m', '1.5'), 0);
  assert.strictEqual(compareQuantities('1e3', '1k'), 0);
  assert.strictEqual(compareQuantities('10Gi', 10737418240n), 0);
  assert.strictEqual(compareQuantities(10737418241n, '10Gi'), 1);
  assert.strictEqual(
    compareQuantities('12345678901234567891', '12345678901234567890'),
    1,
    'beyond 2^53',
  );
  assert.strictEqual(compareQuantities('-1', '0'), -1);
  assert.ok(quantityEquals('0.5Gi', '512Mi'));
  assert.ok(!quantityEquals('0.5G', '512Mi'));
});

it('parseQuantityValue remembers recent values: shared, frozen, and still exact after the memory is cleared', () => {
  const first = parseQuantityValue('20Gi');
  assert.strictEqual(parseQuantityValue('20Gi'), first, 'the same value object');
  assert.ok(Object.isFrozen(first));
  expectThrow(() => {
    (first as { num: bigint }).num = 1n;
  }, TypeError);
  // More distinct quantities than it keeps: every answer stays exact, and '20Gi' is not damaged.
  for (let i = 1; i <= 3000; i++)
    assert.deepStrictEqual(parseQuantityValue(`${i}Mi`), { num: BigInt(i) * 1048576n, den: 1n });
  assert.deepStrictEqual(parseQuantityValue('20Gi'), { num: 21474836480n, den: 1n });
  assert.deepStrictEqual(parseQuantityValue('1.5'), { num: 3n, den: 2n });
  expectThrow(
    () => parseQuantityValue('20 GB'),
    (e: unknown) => isKubeError(e) && e.code === KubeErrorCode.QuantityInvalid,
    'errors are not remembered as values',
  );
  expectThrow(
    () => parseQuantityValue('20 GB'),
    (e: unknown) => isKubeError(e) && e.code === KubeErrorCode.QuantityInvalid,
  );
});

it('apimachinery rounds values up to nano units, away from zero, before anything compares them', () => {
  assert.strictEqual(compareQuantities('1.0000000001', '1.0000000002'), 0);
  assert.strictEqual(compareQuantities('1.0000000001', '1.000000001'), 0);
  assert.strictEqual(compareQuantities('1.000000001', '1.000000002'), -1);
  assert.deepStrictEqual(parseQuantityValue('1e-100'), { num: 1n, den: 1_000_000_000n });
  assert.deepStrictEqual(parseQuantityValue('0.5n'), { num: 1n, den: 1_000_000_000n });
  assert.deepStrictEqual(parseQuantityValue('-.29414166e-35'), { num: -1n, den: 1_000_000_000n });
  assert.strictEqual(compareQuantities('1.0000000001Gi', '1073741824107374183n'), 0);
  assert.strictEqual(compareQuantities('1.0000000000000000001Gi', '1073741824000000001n'), 0);
  assert.strictEqual(
    compareQuantities('10737418240.000000000001', '10Gi'),
    1,
    'a growth, as for Go',
  );
  // Far below a nano unit, and long: still answered (no 10^1000000000 is built).
  assert.deepStrictEqual(parseQuantityValue('1e-1073741824'), { num: 1n, den: 1_000_000_000n });
  assert.deepStrictEqual(parseQuantityValue(`0.${'0'.repeat(100_000)}1Ei`), {
    num: 1n,
    den: 1_000_000_000n,
  });
  assert.strictEqual(compareQuantities(`1.${'0'.repeat(100_000)}1Gi`, '1073741824000000001n'), 0);
  // Long inner runs of zeros (a quadratic trailing-zero regex would take minutes here).
  assert.strictEqual(compareQuantities(`1${'0'.repeat(300_000)}1e-300001`, '1.000000001'), 0);
});

it('apimachinery caps binary-suffix values at 2^63-1 (decimal ones are not capped)', () => {
  assert.strictEqual(compareQuantities('8Ei', '9Ei'), 0);
  assert.strictEqual(compareQuantities('9Ei', '8Ei'), 0, 'not a shrink');
  assert.strictEqual(compareQuantities('8Ei', '9223372036854775807'), 0);
  assert.strictEqual(compareQuantities('9223372036854775808', '8Ei'), 1);
  assert.strictEqual(compareQuantities('-9Ei', '-9223372036854775807'), 0);
  assert.strictEqual(parseQuantity(`${'9'.repeat(100_000)}Ki`), MAX_BINARY_QUANTITY);
  assert.strictEqual(
    parseQuantity('7.99999999999999999999Ei'),
    9223372036854775808n - 1n,
    'rounded up to 2^63, then capped',
  );
});

it('e<n> exponents are read as apimachinery does, however the value is written', () => {
  assert.strictEqual(compareQuantities('1e101', '100e99'), 0);
  assert.strictEqual(compareQuantities('1e+101', `1${'0'.repeat(101)}`), 0);
  assert.strictEqual(compareQuantities('1e999', '0.1e1000'), 0);
  assert.strictEqual(compareQuantities('0e99999', '0'), 0);
  assert.strictEqual(compareQuantities('1E3', '1e+03'), 0);
  // strconv.ParseInt then int32(): 2^32 truncates to 0.
  assert.strictEqual(parseQuantity('1e4294967296'), 1n);
  assert.strictEqual(parseQuantity('1e4294967299'), 1000n);
});

it("beyond voe's bounds: KUBE_QUANTITY_OUT_OF_RANGE, saying what to write, whatever the spelling", () => {
  for (const input of [
    '1e1000',
    '10e999',
    `1${'0'.repeat(1000)}`,
    `${'9'.repeat(1001)}.5`,
    '-1e1000',
    '1e1073741825',
    '1e-1073741825',
    '5e2147483647',
  ]) {
    expectThrow(
      () => parseQuantityValue(input),
      (e: unknown) => {
        assert.ok(isKubeError(e, KubeErrorCode.QuantityOutOfRange), `${input}: ${String(e)}`);
        assert.match(e.message, /beyond what voe reads .* write a size such as "20Gi"/);
        return true;
      },
      input,
    );
  }
});

it('roundUpToMilli is Quantity.RoundUp(-3); formatQuantityValue writes a value back', () => {
  assert.deepStrictEqual(
    roundUpToMilli(parseQuantityValue('10737418240.0001')),
    parseQuantityValue('10737418240001m'),
  );
  assert.deepStrictEqual(
    roundUpToMilli(parseQuantityValue('10737418239.9999')),
    parseQuantityValue('10Gi'),
  );
  assert.deepStrictEqual(
    roundUpToMilli(parseQuantityValue('-1.0001')),
    parseQuantityValue('-1001m'),
  );
  assert.deepStrictEqual(roundUpToMilli(parseQuantityValue('1n')), parseQuantityValue('1m'));
  assert.deepStrictEqual(roundUpToMilli(parseQuantityValue('20Gi')), parseQuantityValue('20Gi'));
  for (const [text, want] of [
    ['20Gi', '21474836480'],
    ['1.5', '1500m'],
    ['1.5u', '1500n'],
    ['0.000001', '1u'],
    ['-2.5m', '-2500u'],
    ['0', '0'],
  ]) {
    assert.strictEqual(formatQuantityValue(parseQuantityValue(text as string)), want, text);
  }
});
