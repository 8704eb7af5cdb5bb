import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fsckExitMeaning, fsckExitText } from '../../../src/fsresize/index.js';

test('fsckExitMeaning names e2fsck exit codes (bits, as in e2fsck(8))', () => {
  assert.equal(fsckExitMeaning(0), 'no errors');
  assert.equal(fsckExitMeaning(1), 'errors corrected');
  assert.equal(fsckExitMeaning(4), 'errors left uncorrected');
  assert.equal(fsckExitMeaning(8), 'operational error');
  assert.equal(fsckExitMeaning(12), 'errors left uncorrected, operational error');
  assert.equal(fsckExitMeaning(64), 'exit 64');
});

test('fsckExitText: "exit N: meaning"', () => {
  assert.equal(fsckExitText(1), 'exit 1: errors corrected');
  assert.equal(fsckExitText(0), 'exit 0: no errors');
});
