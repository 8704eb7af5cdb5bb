import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goBuildEnv } from '../../../src/controlplane/go-build-env.js';

test('the recipe wins over the environment; target variables are dropped; a missing HOME comes from the password database', () => {
  const env = goBuildEnv(
    {
      PATH: '/bin',
      GOFLAGS: '-mod=vendor',
      CGO_ENABLED: '1',
      GOWORK: '/src/go.work',
      GOOS: 'windows',
      GOARCH: 'arm64',
      GOPROXY: 'https://proxy.example',
    },
    () => '/home/u',
  );
  assert.deepEqual(env, {
    PATH: '/bin',
    GOPROXY: 'https://proxy.example',
    HOME: '/home/u',
    CGO_ENABLED: '0',
    GOTOOLCHAIN: 'local',
    GOFLAGS: '-mod=readonly',
    GOWORK: 'off',
  });
  assert.equal(
    goBuildEnv({ HOME: '/root' }, () => '/home/u')['HOME'],
    '/root',
    'a HOME that is set is kept',
  );
  assert.equal(
    goBuildEnv({ HOME: '' }, () => '/home/u')['HOME'],
    '/home/u',
    'an empty HOME counts as unset',
  );
  assert.equal(
    'HOME' in goBuildEnv({ HOME: '' }, () => undefined),
    false,
    'no home anywhere: go says what it misses',
  );
});
