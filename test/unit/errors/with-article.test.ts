import { it } from 'mocha';
import { assert } from 'chai';
import { withArticle } from '../../../src/errors/index.js';

it('withArticle gives the article each filesystem, partition table or JSON type name takes', () => {
  const cases: [string, string][] = [
    ['ext4', 'an ext4'],
    ['ext2', 'an ext2'],
    ['xfs', 'an xfs'],
    ['btrfs', 'a btrfs'],
    ['vfat', 'a vfat'],
    ['ntfs', 'an ntfs'],
    ['LVM2_member', 'an LVM2_member'],
    ['swap', 'a swap'],
    ['iso9660', 'an iso9660'],
    ['dos', 'a dos'],
    ['gpt', 'a gpt'],
    ['atari', 'an atari'],
    ['object', 'an object'],
    ['string', 'a string'],
  ];
  for (const [word, expected] of cases) assert.strictEqual(withArticle(word), expected, word);
});
