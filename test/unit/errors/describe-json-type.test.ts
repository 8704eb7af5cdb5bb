import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeJsonType } from '../../../src/errors/index.js';

test('describeJsonType names each kind of value with its article, and an absent one as "nothing"', () => {
  assert.equal(describeJsonType(undefined), 'nothing');
  assert.equal(describeJsonType(null), 'null');
  assert.equal(describeJsonType([]), 'an array');
  assert.equal(describeJsonType({}), 'an object');
  assert.equal(describeJsonType('x'), 'a string');
  assert.equal(describeJsonType(1), 'a number');
  assert.equal(describeJsonType(true), 'a boolean');
});
