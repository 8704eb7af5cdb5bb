import { it } from 'mocha';
import { assert } from 'chai';
import { describeJsonType } from '../../../src/errors/index.js';

it('describeJsonType names each kind of value with its article, and an absent one as "nothing"', () => {
  assert.strictEqual(describeJsonType(undefined), 'nothing');
  assert.strictEqual(describeJsonType(null), 'null');
  assert.strictEqual(describeJsonType([]), 'an array');
  assert.strictEqual(describeJsonType({}), 'an object');
  assert.strictEqual(describeJsonType('x'), 'a string');
  assert.strictEqual(describeJsonType(1), 'a number');
  assert.strictEqual(describeJsonType(true), 'a boolean');
});
