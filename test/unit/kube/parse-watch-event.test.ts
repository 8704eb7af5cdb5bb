import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { parseWatchEvent } from '../../../src/kube/kube-request.js';

describe('parseWatchEvent (one line of a watch answer)', () => {
  it('reads an event with a type and an object', () => {
    assert.deepStrictEqual(
      parseWatchEvent('{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}'),
      { type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'a' } } },
    );
  });

  it('throws the parse error for a line that is not JSON', () => {
    expectThrow(() => parseWatchEvent('{"type":'), SyntaxError);
  });

  const malformed = [
    'null',
    '"ADDED"',
    '{"object":{}}',
    '{"type":1,"object":{}}',
    '{"type":"ADDED"}',
    '{"type":"ADDED","object":null}',
    '{"type":"ADDED","object":"x"}',
  ];
  for (const line of malformed) {
    it(`says ${line} is a malformed watch event`, () => {
      expectThrow(() => parseWatchEvent(line), {
        message: `malformed watch event: ${line}`,
      });
    });
  }

  it('quotes at most 200 characters of a malformed line', () => {
    const line = `{"type":"ADDED","padding":"${'x'.repeat(300)}"}`;
    const error = expectThrow(() => parseWatchEvent(line), Error) as Error;
    assert.strictEqual(error.message, `malformed watch event: ${line.slice(0, 200)}`);
  });
});
