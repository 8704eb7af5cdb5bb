import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { endOfStructuredJson, MAX_DEPTH } from '../../../src/webhook/end-of-structured-json.js';
import { mutatedText, structuredJson } from '../../support/managed-fields-arbitraries.js';

function endOf(text: string, start = 0): number {
  const bytes = Buffer.from(text, 'latin1');
  return endOfStructuredJson(bytes, start, bytes.length);
}

test('ends just after a value of objects, arrays and strings', () => {
  const cases: Array<[string, number]> = [
    ['[]', 2],
    ['{}', 2],
    ['""', 2],
    ['[ ]', 3],
    ['{ }', 3],
    ['[]]', 2],
    ['{}xyz', 2],
    [' \t\r\n[]', 6],
    ['["a"]', 5],
    ['["a","b"]', 9],
    ['[ "a" , "b" ]', 13],
    ['{"a":"b"}', 9],
    ['{ "a" : "b" , "c" : {} }', 24],
    ['[{"manager":"m","fieldsV1":{"f:spec":{"f:resources":{".":{}}}}}]', 64],
    ['["k:{\\"name\\":\\"x\\"}"]', 22],
    ['["\\"\\\\\\/\\b\\f\\n\\r\\t"]', 20],
    ['["\\u00e9\\uD83D\\uDE00\\uABCD"]', 28],
    ['["\u00e9\u00ff\u007f"]', 7],
    ['[[[[]]]]', 8],
    ['[{},[],""]', 10],
    ['"a"b', 3],
  ];
  for (const [text, end] of cases) {
    assert.equal(endOf(text), end, text);
    assert.doesNotThrow(() => JSON.parse(text.slice(0, end)), text);
  }
  assert.equal(endOf('x["a"]', 1), 6);
});

test('refuses malformed or unfinished values and the ones it does not read', () => {
  const cases = [
    '',
    ' ',
    '[',
    '{',
    '[""',
    '{"a":""',
    '[[]',
    '"abc',
    '"a\\',
    '"\\u12',
    '[}',
    '{]',
    '{"a":[}]',
    '[,]',
    '[,""]',
    '["a",]',
    '["a" "b"]',
    '{"a"}',
    '{"a":}',
    '{"a":"b",}',
    '{a:"b"}',
    '{"a" "b"}',
    '{"a":"b" "c":"d"}',
    '{,}',
    '{"a"::"b"}',
    ':',
    ',',
    ']',
    '}',
    '[1]',
    '1',
    '-1',
    'true',
    'false',
    'null',
    '[true]',
    '{"a":null}',
    '["a",1]',
    '["\x00"]',
    '["\x1f"]',
    '["a\nb"]',
    '["\\x"]',
    '["\\a"]',
    '["\\U0041"]',
    '["\\u12G4"]',
    '["\\u12"]',
    '["\\',
    "['a']",
    '[\u00a0]',
    '[\x0b]',
    '[\x0c]',
    '\u00ef\u00bb\u00bf[]',
  ];
  for (const text of cases) {
    assert.equal(endOf(text), -1, JSON.stringify(text));
  }
});

test('stops at the given end: a value that goes on past it is unfinished', () => {
  const bytes = Buffer.from('["abc"]');
  assert.equal(endOfStructuredJson(bytes, 0, bytes.length), 7);
  for (let end = 0; end < bytes.length; end++)
    assert.equal(endOfStructuredJson(bytes, 0, end), -1, `end ${end}`);
  const escape = Buffer.from('["\\u0041"]');
  for (let end = 0; end < escape.length; end++)
    assert.equal(endOfStructuredJson(escape, 0, end), -1, `end ${end}`);
});

test(`nesting deeper than ${MAX_DEPTH} is left to JSON.parse`, () => {
  assert.equal(endOf('['.repeat(MAX_DEPTH) + ']'.repeat(MAX_DEPTH)), 2 * MAX_DEPTH);
  assert.equal(endOf('['.repeat(MAX_DEPTH + 1) + ']'.repeat(MAX_DEPTH + 1)), -1);
});

test('reads every value of objects, arrays and strings whole, however it is spaced (2,000 runs)', () => {
  fc.assert(
    fc.property(
      structuredJson,
      fc.constantFrom(undefined, 1, 2, '\t'),
      fc.string({ maxLength: 3 }),
      (value, indent, tail) => {
        const text = JSON.stringify(value, null, indent);
        const bytes = Buffer.from(text + tail, 'utf8');
        assert.equal(endOfStructuredJson(bytes, 0, bytes.length), Buffer.byteLength(text));
      },
    ),
    { numRuns: 2_000 },
  );
});

test('never accepts what JSON.parse refuses: mutated values (20,000 runs)', () => {
  const mutated = mutatedText(structuredJson.map((value) => JSON.stringify(value)));
  fc.assert(
    fc.property(mutated, (text) => {
      const bytes = Buffer.from(text, 'utf8');
      const end = endOfStructuredJson(bytes, 0, bytes.length);
      if (end < 0) return;
      assert.doesNotThrow(() => JSON.parse(bytes.toString('utf8', 0, end)), JSON.stringify(text));
    }),
    { numRuns: 20_000 },
  );
});
