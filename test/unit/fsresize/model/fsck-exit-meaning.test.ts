import { it } from 'mocha';
import { assert } from 'chai';
import { fsckExitText } from '../../../../src/fsresize/index.js';
import { fsckExitMeaning } from '../../../../src/fsresize/model/fsck-exit-meaning.js';

it('fsckExitMeaning names e2fsck exit codes (bits, as in e2fsck(8))', () => {
  assert.strictEqual(fsckExitMeaning(0), 'no errors');
  assert.strictEqual(fsckExitMeaning(1), 'errors corrected');
  assert.strictEqual(fsckExitMeaning(4), 'errors left uncorrected');
  assert.strictEqual(fsckExitMeaning(8), 'operational error');
  assert.strictEqual(fsckExitMeaning(12), 'errors left uncorrected, operational error');
  assert.strictEqual(fsckExitMeaning(64), 'exit 64');
});

it('fsckExitText: "exit N: meaning"', () => {
  assert.strictEqual(fsckExitText(1), 'exit 1: errors corrected');
  assert.strictEqual(fsckExitText(0), 'exit 0: no errors');
});
