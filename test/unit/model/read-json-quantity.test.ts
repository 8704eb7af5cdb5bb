import { it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { isKubeError, KubeErrorCode, parseQuantityValue } from '../../../src/kube/index.js';
import type { VirtualMachine } from '../../../src/model/index.js';
import { goTrimSpace, readJsonQuantity } from '../../../src/model/read-json-quantity.js';
import { claimTemplatesOf } from '../../../src/model/vm-claims.js';

it("readJsonQuantity reads a JSON value's raw text as Quantity.UnmarshalJSON does", () => {
  assert.isUndefined(readJsonQuantity('null'));
  assert.deepStrictEqual(readJsonQuantity('"20Gi"'), {
    text: '20Gi',
    value: parseQuantityValue('20Gi'),
  });
  assert.deepStrictEqual(
    readJsonQuantity('" 20Gi\u00a0\u0085"'),
    { text: '20Gi', value: parseQuantityValue('20Gi') },
    'literal Go white space is trimmed',
  );
  assert.deepStrictEqual(readJsonQuantity('"+1Gi"'), {
    text: '+1Gi',
    value: parseQuantityValue('1Gi'),
  });
  // Numbers: exact decimal text, never a double.
  assert.deepStrictEqual(
    readJsonQuantity('10737418240.000000000001')?.value,
    parseQuantityValue('10737418240000000001n'),
    'rounded up to nano, above 10Gi',
  );
  assert.deepStrictEqual(readJsonQuantity('1e309')?.value, { num: 10n ** 309n, den: 1n });
  assert.deepStrictEqual(readJsonQuantity('9007199254740993')?.value, {
    num: 9007199254740993n,
    den: 1n,
  });
  assert.deepStrictEqual(readJsonQuantity('1E+3')?.value, { num: 1000n, den: 1n });
});

it('readJsonQuantity refuses escapes, characters no quantity holds and non-quantities, saying what to write', () => {
  for (const raw of [
    '"\\t20Gi"',
    '"20Gi\\n"',
    '"\\u0032\\u0030Gi"',
    '"\\u00a020Gi"',
    '"\\/20Gi"',
  ]) {
    expectThrow(
      () => readJsonQuantity(raw),
      (e: unknown) =>
        isKubeError(e, KubeErrorCode.QuantityInvalid) &&
        e.message ===
          `the size ${raw} contains a JSON escape sequence (such as \\t or \\u0032): Kubernetes and Harvester read a size's JSON text without decoding escapes, so they cannot read it; write the size in plain characters, e.g. "20Gi"`,
      raw,
    );
  }
  expectThrow(
    () => readJsonQuantity('"\ufeff20Gi"'),
    /contains characters a Kubernetes quantity cannot hold \(U\+FEFF\), which Kubernetes and Harvester cannot read; write the size with digits and a suffix only, e.g. "20Gi"/,
  );
  expectThrow(() => readJsonQuantity('"2\u200b0Gi"'), /\(U\+200B\)/);
  expectThrow(() => readJsonQuantity('"20GB"'), /invalid Kubernetes quantity "20GB"/);
  expectThrow(() => readJsonQuantity('""'), /invalid Kubernetes quantity "": empty string/);
  expectThrow(
    () => readJsonQuantity('{"value":20}'),
    /the size \{"value":20\} is an object, not a quantity; write it as a string such as "20Gi"/,
  );
  expectThrow(() => readJsonQuantity('true'), /is a boolean/);
  expectThrow(() => readJsonQuantity('["20Gi"]'), /is a list/);
  expectThrow(
    () => readJsonQuantity('"1e1000"'),
    (e: unknown) => isKubeError(e, KubeErrorCode.QuantityOutOfRange),
  );
});

it("goTrimSpace is Go's strings.TrimSpace (not JavaScript's trim)", () => {
  assert.strictEqual(
    goTrimSpace('\t\n\v\f\r \u0085\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000x\u3000'),
    'x',
  );
  assert.strictEqual(goTrimSpace('\ufeffx'), '\ufeffx');
  assert.strictEqual(goTrimSpace('\u200bx'), '\u200bx');
  assert.strictEqual(goTrimSpace('   '), '');
  assert.strictEqual(goTrimSpace(''), '');
  // A long inner run of spaces (a /[...]+$/ regex would be quadratic on it).
  const inner = `1${' '.repeat(300_000)}Gi`;
  assert.strictEqual(goTrimSpace(` ${inner} `), inner);
  expectThrow(() => readJsonQuantity(JSON.stringify(inner)), /U\+0020/);
});

it("claimTemplatesOf keeps each entry's raw storage text (the last of duplicate keys; null entries skipped)", () => {
  const annotation =
    '[null, {"metadata":{"name":"a"},"spec":{"resources":{"requests":{"storage":"1Gi","storage":"\\t2Gi"}}}},' +
    '{"metadata":{"name":"b"},"spec":{"resources":{"requests":{"storage": 1e3 }}}}, {"metadata":{"name":"c"}}, 7]';
  const vm: VirtualMachine = {
    metadata: { name: 'vm1', annotations: { 'harvesterhci.io/volumeClaimTemplates': annotation } },
  };
  assert.deepStrictEqual(
    claimTemplatesOf(vm).map((t) => [t.pvc.metadata?.name, t.storage]),
    [
      ['a', '"\\t2Gi"'],
      ['b', '1e3'],
      ['c', undefined],
    ],
  );
  assert.deepStrictEqual(
    claimTemplatesOf({
      metadata: { annotations: { 'harvesterhci.io/volumeClaimTemplates': 'not json' } },
    }),
    [],
  );
});
