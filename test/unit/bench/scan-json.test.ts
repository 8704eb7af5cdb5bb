import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { scanJson } from '../../../bench/support/scan-json.js';

/** The benchmark's "bare + scan" server must refuse exactly what JSON.parse refuses, or its figure means nothing. */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const jsonText = fc.oneof(
  fc.json(),
  fc.jsonValue().map((value) => JSON.stringify(value, null, 2)),
  fc.jsonValue().map((value) => ` \n\t${JSON.stringify(value)}\r\n `),
);

/** Characters that matter to a JSON grammar, including ones it forbids. */
const significant = fc.constantFrom(
  ...'{}[]:,"\\ \t\n\r0123456789.eE+-tfnrulasbu/x\u0000\u001f\u007f\u00e9\ud800'.split(''),
);

const edit = fc.record({
  at: fc.nat(),
  remove: fc.nat({ max: 3 }),
  insert: fc.array(significant, { maxLength: 3 }).map((cs) => cs.join('')),
});

function applyEdits(
  text: string,
  edits: Array<{ at: number; remove: number; insert: string }>,
): string {
  let out = text;
  for (const { at, remove, insert } of edits) {
    const position = out.length === 0 ? 0 : at % (out.length + 1);
    out = out.slice(0, position) + insert + out.slice(position + remove);
  }
  return out;
}

test('scanJson accepts every JSON text, compact or indented (20,000 runs)', () => {
  fc.assert(
    fc.property(jsonText, (text) => {
      assert.equal(scanJson(text), true, text);
    }),
    { numRuns: 20_000 },
  );
});

test('scanJson agrees with JSON.parse on mutated JSON texts (50,000 runs)', () => {
  fc.assert(
    fc.property(jsonText, fc.array(edit, { minLength: 1, maxLength: 3 }), (text, edits) => {
      const mutated = applyEdits(text, edits);
      assert.equal(scanJson(mutated), parses(mutated), JSON.stringify(mutated));
    }),
    { numRuns: 50_000 },
  );
});

test('scanJson agrees with JSON.parse on short strings of JSON characters (50,000 runs)', () => {
  fc.assert(
    fc.property(
      fc.array(significant, { maxLength: 12 }).map((cs) => cs.join('')),
      (text) => {
        assert.equal(scanJson(text), parses(text), JSON.stringify(text));
      },
    ),
    { numRuns: 50_000 },
  );
});

test('scanJson on the corner cases of the grammar', () => {
  const cases = [
    '',
    ' ',
    '0',
    '-0',
    '01',
    '1.',
    '.5',
    '-',
    '1e',
    '1e+',
    '1E-2',
    '2.5e10',
    'tru',
    'true',
    'nul',
    'falsey',
    '""',
    '"\\u12"',
    '"\\u00e9"',
    '"\\x"',
    '"\t"',
    '"\u007f"',
    '"\ud800"',
    '"a',
    '"\\"',
    '[]',
    '[ ]',
    '[1,]',
    '[,1]',
    '[1 2]',
    '{}',
    '{ }',
    '{"a":1,}',
    '{,}',
    '{"a"}',
    '{"a" : 1 , "b" : [ ]}',
    '{1:2}',
    '{"a":1}}',
    '[[[]]',
    '[]]',
    '1 2',
    'null null',
    `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
  ];
  for (const text of cases)
    assert.equal(scanJson(text), parses(text), JSON.stringify(text.slice(0, 40)));
});
