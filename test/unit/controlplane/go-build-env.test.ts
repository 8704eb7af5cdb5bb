import { it } from 'mocha';
import { assert } from 'chai';
import { goBuildEnv } from '../../../src/controlplane/go-build-env.js';

it('the recipe wins over the environment; target variables are dropped; a missing HOME comes from the password database', () => {
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
  assert.deepStrictEqual(env, {
    PATH: '/bin',
    GOPROXY: 'https://proxy.example',
    HOME: '/home/u',
    CGO_ENABLED: '0',
    GOTOOLCHAIN: 'local',
    GOFLAGS: '-mod=readonly',
    GOWORK: 'off',
  });
  assert.strictEqual(
    goBuildEnv({ HOME: '/root' }, () => '/home/u')['HOME'],
    '/root',
    'a HOME that is set is kept',
  );
  assert.strictEqual(
    goBuildEnv({ HOME: '' }, () => '/home/u')['HOME'],
    '/home/u',
    'an empty HOME counts as unset',
  );
  assert.isFalse(
    'HOME' in goBuildEnv({ HOME: '' }, () => undefined),
    'no home anywhere: go says what it misses',
  );
});
