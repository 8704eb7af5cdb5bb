import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { goOlderThan, requiredGoRelease } from '../../../src/controlplane/check-go-version.js';
import { goModuleDir } from '../../../src/controlplane/go-module-dir.js';

test('the Go release the module needs is read from its go line', () => {
  assert.equal(requiredGoRelease(readFileSync(join(goModuleDir(), 'go.mod'), 'utf8')), '1.24');
  assert.equal(requiredGoRelease('module m\n\ngo 1.25.3\n'), '1.25');
  assert.equal(requiredGoRelease('module m\n'), undefined);
});

test('GOVERSION is compared by release; what cannot be read is left to the build', () => {
  for (const older of ['go1.19.8', 'go1.23.12', 'go1.24rc1'.replace('24', '23')])
    assert.equal(goOlderThan(older, '1.24'), true, older);
  for (const recent of [
    'go1.24.0',
    'go1.24rc1',
    'go1.26.8',
    'go2.0',
    'devel go1.26-4f5e3a1 Mon Jan 1 00:00:00 2026 +0000',
    'gibberish',
    '',
  ])
    assert.equal(goOlderThan(recent, '1.24'), false, recent);
});
