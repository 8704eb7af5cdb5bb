import { it } from 'mocha';
import { assert } from 'chai';
import { join } from 'node:path';
import { defaultCacheDir } from '../../../src/cli/cache-dir.js';

it('the build cache is $VOE_CACHE_DIR, else ~/.cache/voe; an empty VOE_CACHE_DIR or HOME counts as unset (never a directory relative to the current one)', () => {
  assert.strictEqual(
    defaultCacheDir({ VOE_CACHE_DIR: '/srv/voe-cache', HOME: '/home/a' }),
    '/srv/voe-cache',
  );
  assert.strictEqual(defaultCacheDir({ HOME: '/home/a' }), '/home/a/.cache/voe');
  assert.strictEqual(defaultCacheDir({ VOE_CACHE_DIR: '', HOME: '/home/a' }), '/home/a/.cache/voe');
  assert.ok(defaultCacheDir({ VOE_CACHE_DIR: '', HOME: '' }).startsWith('/'));
});

it('a relative VOE_CACHE_DIR is made absolute from the current directory', () => {
  assert.strictEqual(
    defaultCacheDir({ VOE_CACHE_DIR: 'voe-cache', HOME: '/home/a' }),
    join(process.cwd(), 'voe-cache'),
  );
});
