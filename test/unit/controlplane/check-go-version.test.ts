import { it } from 'mocha';
import { assert } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { goOlderThan, requiredGoRelease } from '../../../src/controlplane/check-go-version.js';
import { goModuleDir } from '../../../src/controlplane/go-module-dir.js';

it('the Go release the module needs is read from its go line', () => {
  assert.strictEqual(
    requiredGoRelease(readFileSync(join(goModuleDir(), 'go.mod'), 'utf8')),
    '1.24',
  );
  assert.strictEqual(requiredGoRelease('module m\n\ngo 1.25.3\n'), '1.25');
  assert.isUndefined(requiredGoRelease('module m\n'));
});

it('GOVERSION is compared by release; what cannot be read is left to the build', () => {
  for (const older of ['go1.19.8', 'go1.23.12', 'go1.24rc1'.replace('24', '23')])
    assert.isTrue(goOlderThan(older, '1.24'), older);
  for (const recent of [
    'go1.24.0',
    'go1.24rc1',
    'go1.26.8',
    'go2.0',
    'devel go1.26-4f5e3a1 Mon Jan 1 00:00:00 2026 +0000',
    'gibberish',
    '',
  ])
    assert.isFalse(goOlderThan(recent, '1.24'), recent);
});
