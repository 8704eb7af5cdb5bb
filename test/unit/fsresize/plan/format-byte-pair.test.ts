import { it } from 'mocha';
import { assert } from 'chai';
import { formatBytePair } from '../../../../src/fsresize/plan/format-byte-pair.js';

const MiB = 1024 * 1024;

it('formatBytePair: the exact bytes too, on both sides, only when two different sizes read the same', () => {
  assert.deepStrictEqual(formatBytePair(100 * MiB - 512, 100 * MiB), [
    '100.0 MiB (104857088 bytes)',
    '100.0 MiB (104857600 bytes)',
  ]);
  assert.deepStrictEqual(formatBytePair(2 ** 30, 2 ** 30 + MiB), [
    '1.0 GiB (1073741824 bytes)',
    '1.0 GiB (1074790400 bytes)',
  ]);
  assert.deepStrictEqual(
    formatBytePair(64 * MiB, 256 * MiB),
    ['64.0 MiB', '256.0 MiB'],
    'they differ already',
  );
  assert.deepStrictEqual(
    formatBytePair(100 * MiB, 100 * MiB),
    ['100.0 MiB', '100.0 MiB'],
    'equal sizes do not contradict',
  );
  assert.deepStrictEqual(formatBytePair(512, 1000), ['512 B', '1000 B'], 'bytes are exact anyway');
});
