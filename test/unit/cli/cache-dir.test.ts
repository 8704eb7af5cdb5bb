import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { defaultCacheDir } from '../../../src/cli/cache-dir.js';

test('the build cache is $VOE_CACHE_DIR, else ~/.cache/voe; an empty VOE_CACHE_DIR or HOME counts as unset (never a directory relative to the current one)', () => {
  assert.equal(
    defaultCacheDir({ VOE_CACHE_DIR: '/srv/voe-cache', HOME: '/home/a' }),
    '/srv/voe-cache',
  );
  assert.equal(defaultCacheDir({ HOME: '/home/a' }), '/home/a/.cache/voe');
  assert.equal(defaultCacheDir({ VOE_CACHE_DIR: '', HOME: '/home/a' }), '/home/a/.cache/voe');
  assert.ok(defaultCacheDir({ VOE_CACHE_DIR: '', HOME: '' }).startsWith('/'));
});

test('a relative VOE_CACHE_DIR is made absolute from the current directory', () => {
  assert.equal(
    defaultCacheDir({ VOE_CACHE_DIR: 'voe-cache', HOME: '/home/a' }),
    join(process.cwd(), 'voe-cache'),
  );
});
