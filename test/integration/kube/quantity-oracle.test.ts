/**
 * Differential test of voe's quantity reading against the real implementation: the Go oracle in
 * test/support/quantity-oracle (k8s.io/apimachinery v0.33.13, our kube-apiserver's), built with
 * `go build` into the test cache. A few thousand hand-picked and fast-check generated strings:
 * voe must agree on whether a quantity is accepted, its exact value, comparisons, the raw-JSON
 * reading of the VM path (readJsonQuantity) and voe check's --size (readCheckSize).
 *
 * Known differences, excluded on purpose (documented in src/kube/quantity.ts and docs/errors.md):
 * - forms with no digit before any suffix (".", "+", "e3", "-M"): Go reads them as 0, voe refuses
 *   them (KUBE_QUANTITY_INVALID); a PVC request of 0 is refused by the API server's validation.
 * - decimal values of 1e1000 or more: voe refuses them (KUBE_QUANTITY_OUT_OF_RANGE), checked here
 *   to be only such values.
 * - exponents near +-2^31, where apimachinery's scale arithmetic wraps and its big-number work
 *   does not finish: not generated.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import {
  compareQuantities,
  isKubeError,
  KubeErrorCode,
  parseQuantityValue,
  type QuantityValue,
} from '../../../src/kube/index.js';
import { readJsonQuantity } from '../../../src/model/read-json-quantity.js';
import { readCheckSize } from '../../../src/check/read-check-size.js';
import {
  askQuantityOracle,
  buildQuantityOracle,
  type OracleAnswer,
} from '../../support/quantity-oracle.js';
import fc from 'fast-check';

const oracle = await buildQuantityOracle();

const HAND = [
  '1Gi',
  '1G',
  '1.5Gi',
  '0.5Ki',
  '1e3',
  '1E3',
  '1e-3',
  '1m',
  '1000m',
  '1.0000000001Gi',
  '+1Gi',
  '-1Gi',
  ' 1Gi',
  '1Gi ',
  '1 Gi',
  '1gi',
  '1GiB',
  '01Gi',
  '.5Gi',
  '5.Gi',
  '5.',
  '.',
  '+',
  '-',
  '+.5',
  '-.5',
  '1Ei',
  '7Ei',
  '8Ei',
  '9Ei',
  '100Ei',
  '7.99999Ei',
  '7.99999999999999999999Ei',
  '9223372036854775807',
  '9223372036854775808',
  '9223372036854775806',
  '18446744073709551616',
  '1e18',
  '1e19',
  '9.3e18',
  '1e100',
  '1e101',
  '1e102',
  '100e99',
  '100e100',
  '1e-100',
  '1e-101',
  '1e-1000',
  '1e999',
  '1e1000',
  '10e999',
  '1e1200',
  '1e-1200',
  '1e+3',
  '1e+03',
  '1E+3',
  '1e-0',
  '1e0',
  '1e',
  '1E',
  'e3',
  '1ee3',
  '1e4294967296',
  '1e4294967299',
  '1e-4294967296',
  '1e9223372036854775807',
  '1e9223372036854775808',
  '1e-9223372036854775809',
  '1e00000000000000000000003',
  '1K',
  '1k',
  '1Ki',
  '1KiB',
  '1Mi',
  '1M',
  '1T',
  '1Ti',
  '1P',
  '1Pi',
  '1E',
  '1n',
  '1u',
  '1µ',
  '0',
  '0.0',
  '-0',
  '+0',
  '0Gi',
  '0e5',
  '0e99999',
  '00',
  '0.',
  '.0',
  '1.5',
  '100m',
  '0.1',
  '0.0000000001',
  '0.0000000005',
  '1.0000000001',
  '1.0000000002',
  '1.0000000009',
  '1.0000000000000000001Gi',
  '0.000000001',
  '0.5n',
  '1.5n',
  '',
  ' ',
  '\t1Gi',
  '1Gi\n',
  '\u00a01Gi',
  '1Gi\u00a0',
  '\u20281Gi',
  '\ufeff1Gi',
  '1Gi\u0085',
  '\u30001Gi',
  '１Gi',
  '1\u0000Gi',
  '1_000',
  '1,000',
  '0x10',
  '1/2',
  'Infinity',
  'NaN',
  'null',
  '1Gi1',
  '1.5.5',
  '1..5',
  '--1',
  '+-1',
  '1-',
  '1e+-3',
  '1Ki3',
  '1e3Ki',
  '-.Ti',
  '-M',
  '-.29414166e-35',
  '-448410484Ti',
  '1024',
  '1025',
  '1023.5',
  '1536Mi',
  '10240Mi',
  '10Gi',
  '20Gi',
  '20G',
  '21474836480',
  '20e9',
  '2e10',
  '10737418239.9999',
  '10737418240.0001',
  `1${'0'.repeat(30)}`,
  '9'.repeat(40),
  `1.${'0'.repeat(40)}1`,
  `0.${'0'.repeat(8)}1`,
  `0.${'0'.repeat(9)}1`,
  `${'1'.repeat(19)}Ki`,
  `${'9'.repeat(2000)}Ki`,
  `0.${'0'.repeat(2000)}1Ei`,
  `1.${'0'.repeat(2000)}1Gi`,
  `1${'0'.repeat(999)}`,
  `1${'0'.repeat(1000)}`,
  `0.${'0'.repeat(1500)}1e1500`,
  '8796093022208Mi',
  '8589934592Gi',
  '8388608Ti',
  '8192Pi',
  '9007199254740993',
  '9007199254740993Ki',
  '123456789012345678901234567890Gi',
  '3.3333333333Gi',
  '99652355.81099Ti',
  '0.0009765625Ki',
  '1.1Ki',
];

const digits = fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 24 });
const someDigits = fc.string({
  unit: fc.constantFrom(...'0123456789'),
  minLength: 1,
  maxLength: 24,
});
const suffix = fc.oneof(
  fc.constantFrom(
    '',
    'Ki',
    'Mi',
    'Gi',
    'Ti',
    'Pi',
    'Ei',
    'n',
    'u',
    'm',
    'k',
    'M',
    'G',
    'T',
    'P',
    'E',
  ),
  fc
    .tuple(
      fc.constantFrom('e', 'E'),
      fc.constantFrom('', '+', '-'),
      fc.integer({ min: 0, max: 1100 }),
    )
    .map(([e, sign, n]) => `${e}${sign}${n}`),
  fc.constantFrom('K', 'KiB', 'gi', 'i', 'ki', 'EE', 'e', 'Ki3', 'mi', 'B', 'Ge3', 'e+', 'e-'),
);
const grammar = fc
  .tuple(
    fc.constantFrom('', '', '', '+', '-'),
    fc.oneof({ arbitrary: someDigits, weight: 9 }, { arbitrary: fc.constant(''), weight: 1 }),
    fc.constantFrom('', '', '.'),
    digits,
    suffix,
  )
  .map(
    ([sign, whole, dot, fraction, tail]) => `${sign}${whole}${dot}${dot ? fraction : ''}${tail}`,
  );
const noise = fc.string({
  unit: fc.constantFrom(...'0123456789.+-eEKMGTPiknum \t\u00a0\u0085\ufeff'),
  maxLength: 10,
});
const binary = fc.string({ unit: 'binary', maxLength: 8 });
const STRINGS = [
  ...new Set([
    ...HAND,
    ...fc.sample(grammar, { numRuns: 2500, seed: 42 }),
    ...fc.sample(noise, { numRuns: 1200, seed: 43 }),
    ...fc.sample(binary, { numRuns: 400, seed: 44 }),
  ]),
];

/** Go reads a quantity with no digit before its suffix as 0; voe refuses it (excluded, see above). */
const digitless = (text: string): boolean => /^[+-]?\.?(?:[^0-9.]|$)/.test(text);

/** apimachinery's AsDec().String() as an exact rational. */
function decimal(text: string): QuantityValue {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  assert.ok(m, `not a decimal: ${text}`);
  const num = BigInt(`${m[2]}${m[3] ?? ''}`) * (m[1] ? -1n : 1n);
  return { num, den: 10n ** BigInt((m[3] ?? '').length) };
}

/** Whether Go's exact value is 1e1000 or more in absolute value (what voe refuses as out of range). */
const beyondBound = (exact: string): boolean =>
  exact.replace(/^-/, '').split('.')[0]!.replace(/^0+/, '').length > 1000;

function voeRead<T>(read: () => T): { ok: true; value: T } | { ok: false; code: string } {
  try {
    return { ok: true, value: read() };
  } catch (error) {
    if (!isKubeError(error)) throw error;
    return { ok: false, code: error.code };
  }
}

/** One disagreement per element, described; empty when voe agrees with apimachinery throughout. */
function disagreements(
  inputs: readonly string[],
  answers: readonly OracleAnswer[],
  read: (input: string) => QuantityValue | undefined,
  excluded: (input: string) => boolean,
): string[] {
  const found: string[] = [];
  for (const [i, input] of inputs.entries()) {
    const go = answers[i]!;
    const voe = voeRead(() => read(input));
    const shown = JSON.stringify(
      input.length > 60 ? `${input.slice(0, 60)}…(${input.length})` : input,
    );
    if (go.ok && voe.ok) {
      if (go.null || voe.value === undefined) {
        if (!(go.null && voe.value === undefined))
          found.push(`${shown}: go null=${go.null === true}, voe ${String(voe.value)}`);
      } else if (compareQuantities(voe.value, decimal(go.exact!)) !== 0) {
        found.push(`${shown}: go ${go.exact}, voe ${voe.value.num}/${voe.value.den}`);
      }
    } else if (go.ok && !voe.ok) {
      if (voe.code === KubeErrorCode.QuantityOutOfRange && beyondBound(go.exact ?? '')) continue;
      if (voe.code === KubeErrorCode.QuantityInvalid && excluded(input)) continue;
      found.push(`${shown}: go accepts (${go.exact?.slice(0, 40)}), voe ${voe.code}`);
    } else if (!go.ok && voe.ok) {
      found.push(
        `${shown}: go refuses (${go.err}), voe reads ${String(voe.value?.num)}/${String(voe.value?.den)}`,
      );
    } else if (!voe.ok && voe.code !== KubeErrorCode.QuantityInvalid) {
      found.push(`${shown}: go refuses, voe ${voe.code}`);
    }
  }
  return found;
}

it(`ParseQuantity: voe accepts, refuses and values ${STRINGS.length} strings as apimachinery does`, async () => {
  const answers = await askQuantityOracle(
    oracle,
    STRINGS.map((q) => ({ q })),
  );
  assert.deepStrictEqual(
    disagreements(STRINGS, answers, parseQuantityValue, digitless).slice(0, 20),
    [],
  );
  // The exclusions stay few: most of the corpus is compared.
  // Enough values are compared (the noise strings are mostly refused, or digit-less and excluded).
  const compared = STRINGS.filter((s, i) => answers[i]!.ok && !digitless(s));
  assert.ok(compared.length > 1000, `${compared.length} values compared`);
});

it('Cmp: voe compares as apimachinery does (cap at 2^63-1, nano round-up, exponents)', async () => {
  const readable = STRINGS.filter((s) => voeRead(() => parseQuantityValue(s)).ok);
  const pairs: Array<[string, string]> = [
    ['8Ei', '9Ei'],
    ['9Ei', '8Ei'],
    ['9223372036854775807', '8Ei'],
    ['9223372036854775808', '8Ei'],
    ['1.0000000001', '1.0000000002'],
    ['1Gi', '1.0000000001Gi'],
    ['1073741824', '1073741824.0000000001'],
    ['7.99999999999999999999Ei', '8Ei'],
    ['1e-10', '2e-10'],
    ['0', '1e-10'],
    ['10Gi', '10240Mi'],
    ['20Gi', '20G'],
    ['1e101', '100e99'],
    ['1e102', '1e101'],
    ['1e-101', '0'],
    ['448Ei', '94999774T'],
    ['18446744073709551616', '712813150.3549Ei'],
    ...fc.sample(fc.tuple(fc.constantFrom(...readable), fc.constantFrom(...readable)), {
      numRuns: 3000,
      seed: 45,
    }),
  ];
  const answers = await askQuantityOracle(
    oracle,
    pairs.map((cmp) => ({ cmp })),
  );
  const found: string[] = [];
  for (const [i, [a, b]] of pairs.entries()) {
    const go = answers[i]!;
    if (!go.ok) {
      found.push(`${a} vs ${b}: go refuses one (${go.err})`);
      continue;
    }
    const voe = voeRead(() => compareQuantities(a, b));
    if (!voe.ok && voe.code === KubeErrorCode.QuantityOutOfRange) continue;
    if (!voe.ok || voe.value !== go.cmp)
      found.push(`${a} vs ${b}: go ${go.cmp}, voe ${voe.ok ? voe.value : voe.code}`);
  }
  assert.deepStrictEqual(found.slice(0, 20), []);
});

it('UnmarshalJSON: readJsonQuantity reads raw JSON value text (strings with escapes or literal characters, numbers, null) as Go does', async () => {
  const literalSpaces = ['1Gi', '20Gi', '1.5Gi', '1e3'].flatMap((s) =>
    [' ', '\u00a0', '\u0085', '\u2028', '\u3000', '\ufeff', '\u200b', '\u1680'].flatMap((space) => [
      `"${space}${s}"`,
      `"${s}${space}"`,
    ]),
  );
  const escaped = [
    '"\\t1Gi"',
    '"1Gi\\n"',
    '"\\u0031Gi"',
    '"1\\u0047i"',
    '"\\u00a01Gi"',
    '"\\u00201Gi"',
    '"\\/1Gi"',
    '"1Gi\\r"',
    '" 1Gi"',
    '""',
    '" "',
  ];
  const jsonNumber = fc
    .tuple(
      fc.constantFrom('', '-'),
      fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9]\d{0,24}$/)),
      fc.option(fc.stringMatching(/^\d{1,25}$/), { nil: undefined }),
      fc.option(
        fc.tuple(
          fc.constantFrom('e', 'E'),
          fc.constantFrom('', '+', '-'),
          fc.integer({ min: 0, max: 1100 }),
        ),
        { nil: undefined },
      ),
    )
    .map(
      ([sign, whole, fraction, exponent]) =>
        `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : exponent.join('')}`,
    );
  const numbers = [
    '10737418240.000000000001',
    '1e309',
    '1e400',
    '9007199254740993',
    '18014398509481985',
    '123456789012345678901234567890',
    '-0',
    '0.1',
    '1e-7',
    '1E+3',
    ...fc.sample(jsonNumber, { numRuns: 1500, seed: 46 }),
  ];
  const raws = [
    ...new Set([
      ...STRINGS.map((s) => JSON.stringify(s)),
      ...literalSpaces,
      ...escaped,
      ...numbers,
      'null',
    ]),
  ];
  const answers = await askQuantityOracle(
    oracle,
    raws.map((json) => ({ json })),
  );
  const inner = (raw: string): string =>
    (raw.startsWith('"') ? raw.slice(1, -1) : raw).replace(/^[\s\u0085\u00a0]+/, '');
  assert.deepStrictEqual(
    disagreements(
      raws,
      answers,
      (raw) => readJsonQuantity(raw)?.value,
      (raw) => digitless(inner(raw)),
    ).slice(0, 20),
    [],
  );
});

it("voe check --size: readCheckSize gives the value the API server stores (UnmarshalJSON of the patch's JSON string, then RoundUp(-3))", async () => {
  // The patch's JSON string as the API server re-encodes it (Go escapes U+2028 and U+2029; tested against a real API server in test/integration/cli/check.test.ts).
  const patchText = (size: string): string =>
    JSON.stringify(size).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  const answers = await askQuantityOracle(
    oracle,
    STRINGS.map((s) => ({ milli: patchText(s) })),
  );
  const inner = (size: string): string => size.replace(/^[\s\u0085\u00a0]+/, '');
  assert.deepStrictEqual(
    disagreements(
      STRINGS,
      answers,
      (size) => parseQuantityValue(readCheckSize(size)),
      (size) => digitless(inner(size)),
    ).slice(0, 20),
    [],
  );
});
