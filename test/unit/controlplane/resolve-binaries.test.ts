import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveBinaries } from '../../../src/controlplane/index.js';

// A cache dir with nothing in it: any attempt to build would need `go` and minutes; these
// tests pass only because the environment variables win.
const emptyCache = join(tmpdir(), 'voe-no-cache-here');

it('TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD win over everything', async () => {
  const bins = await resolveBinaries({
    cacheDir: emptyCache,
    env: {
      TEST_ASSET_KUBE_APISERVER: '/opt/a/kube-apiserver',
      TEST_ASSET_ETCD: '/opt/a/etcd',
      KUBEBUILDER_ASSETS: '/opt/b',
    },
  });
  assert.deepStrictEqual(bins, {
    kubeApiServer: '/opt/a/kube-apiserver',
    etcd: '/opt/a/etcd',
    etcdSource: 'go-build',
    origin: 'env',
  });
});

it('KUBEBUILDER_ASSETS supplies both binaries', async () => {
  const bins = await resolveBinaries({
    cacheDir: emptyCache,
    env: { KUBEBUILDER_ASSETS: '/opt/b' },
  });
  assert.strictEqual(bins.kubeApiServer, '/opt/b/kube-apiserver');
  assert.strictEqual(bins.etcd, '/opt/b/etcd');
  assert.strictEqual(bins.origin, 'env');
});

it('the cache is used when it holds both binaries', async () => {
  const { binariesDir } = await import('../../../src/controlplane/build-binaries.js');
  const cache = await mkdtemp(join(tmpdir(), 'voe-cache-'));
  onCleanup(() => rm(cache, { recursive: true, force: true }));
  const dir = binariesDir(cache);
  await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
  for (const name of ['kube-apiserver', 'etcd'])
    await writeFile(join(dir, name), '#!/bin/sh\n', { mode: 0o755 });
  const bins = await resolveBinaries({ cacheDir: cache, env: {} });
  assert.deepStrictEqual(bins, {
    kubeApiServer: join(dir, 'kube-apiserver'),
    etcd: join(dir, 'etcd'),
    etcdSource: 'go-build',
    origin: 'cache',
  });
});
