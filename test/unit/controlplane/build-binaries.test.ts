import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { fakeGoSandbox as sandbox } from '../../support/fake-go.js';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  buildBinaries,
  binariesDir,
  ETCD_FALLBACK_KEPT_MS,
} from '../../../src/controlplane/build-binaries.js';

/** A validation function for expectRejection: `check` gets the error's code and message. */
function coded(check: (e: { code?: string; message?: string }) => boolean) {
  return (error: unknown): boolean => check(error as { code?: string; message?: string });
}

it("when only the etcd build fails, Debian's etcd-server is used and a line says so", async () => {
  const { dir, debianEtcd, env } = await sandbox();
  await writeFile(debianEtcd, '#!/bin/sh\n', { mode: 0o755 });
  const lines: string[] = [];
  const built = await buildBinaries({
    cacheDir: join(dir, 'cache'),
    env,
    debianEtcd,
    onProgress: (l) => lines.push(l),
  });
  assert.strictEqual(built.etcdSource, 'debian');
  assert.strictEqual(built.etcd, debianEtcd);
  assert.strictEqual(built.kubeApiServer, join(binariesDir(join(dir, 'cache')), 'kube-apiserver'));
  assert.ok(
    lines.some((l) => /etcd build failed; falling back to Debian's etcd-server/.test(l)),
    lines.join('\n'),
  );
  // Cached: a second call builds nothing and still reports the fallback.
  const calls = (await readFile(join(dir, 'go-calls'), 'utf8')).trim().split('\n');
  const again = await buildBinaries({ cacheDir: join(dir, 'cache'), env, debianEtcd });
  assert.strictEqual(again.etcdSource, 'debian');
  assert.deepStrictEqual((await readFile(join(dir, 'go-calls'), 'utf8')).trim().split('\n'), calls);

  // A day later the etcd build is tried again (it may have failed for a passing reason); kube-apiserver stays cached.
  const marker = join(binariesDir(join(dir, 'cache')), 'etcd-fallback');
  const old = new Date(Date.now() - ETCD_FALLBACK_KEPT_MS - 60_000);
  await utimes(marker, old, old);
  const retried: string[] = [];
  const later = await buildBinaries({
    cacheDir: join(dir, 'cache'),
    env,
    debianEtcd,
    onProgress: (l) => retried.push(l),
  });
  assert.strictEqual(later.etcdSource, 'debian', 'the build failed again: Debian etcd once more');
  assert.ok(
    retried.some((l) => /etcd build failed; falling back to Debian's etcd-server/.test(l)),
    retried.join('\n'),
  );
  assert.deepStrictEqual(
    (await readFile(join(dir, 'go-calls'), 'utf8')).trim().split('\n'),
    calls,
    'kube-apiserver was not built again',
  );
});

it('without Debian etcd-server a failed etcd build is a clear error naming the package to install', async () => {
  const { dir, debianEtcd, env } = await sandbox();
  await expectRejection(
    buildBinaries({ cacheDir: join(dir, 'cache'), env, debianEtcd }),
    coded(
      (e) =>
        e.code === 'CONTROLPLANE_BUILD_FAILED' &&
        /apt-get install etcd-server/.test(e.message ?? '') &&
        /missing go\.sum entry/.test(e.message ?? ''),
    ),
  );
});

it('go missing from PATH is CONTROLPLANE_GO_MISSING with what to do instead', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-build-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  await expectRejection(
    buildBinaries({ cacheDir: join(dir, 'cache'), env: { PATH: dir, HOME: dir } }),
    coded(
      (e) =>
        e.code === 'CONTROLPLANE_GO_MISSING' && /TEST_ASSET_KUBE_APISERVER/.test(e.message ?? ''),
    ),
  );
});

it('a relative cache directory is read from the current directory: the build lands there (not beside the Go module) and is used', async () => {
  const { dir, env } = await sandbox();
  const before = process.cwd();
  process.chdir(dir);
  onCleanup(() => process.chdir(before));
  const built = await buildBinaries({
    cacheDir: 'cache',
    env,
    debianEtcd: join(dir, 'no-debian-etcd'),
  }).catch((error: unknown) => error);
  // The fake etcd build fails and there is no Debian etcd: the error must be about etcd's build, not a rename.
  assert.ok(
    built instanceof Error &&
      /missing go\.sum entry/.test(built.message) &&
      !/rename|ENOENT/.test(built.message),
    String(built),
  );
  const kubeApiServer = join(dir, 'cache', 'bin');
  assert.ok(
    (await readFile(join(binariesDir(join(dir, 'cache')), 'kube-apiserver'), 'utf8')).includes(
      'Kubernetes v1.33.13',
    ),
    `kube-apiserver built under ${kubeApiServer}`,
  );
  assert.strictEqual(
    binariesDir('cache'),
    binariesDir(join(dir, 'cache')),
    'binariesDir names an absolute directory',
  );
});

it('go builds for this machine whatever the environment says: no go.work (GOWORK=off), no GOOS/GOARCH of a cross-compiling shell, and a HOME for its caches when none is set', async () => {
  const { dir, debianEtcd } = await sandbox();
  await writeFile(debianEtcd, '#!/bin/sh\n', { mode: 0o755 });
  // No HOME: go finds neither its build cache nor its module cache without one ("module cache not found").
  const env = {
    PATH: `${dir}:/usr/bin:/bin`,
    GOWORK: join(dir, 'go.work'),
    GOOS: 'windows',
    GOARCH: 'arm64',
  };
  await buildBinaries({ cacheDir: join(dir, 'cache'), env, debianEtcd });
  const seen = (await readFile(join(dir, 'go-env'), 'utf8')).trim().split('\n');
  assert.ok(seen.length >= 1);
  for (const line of seen)
    assert.strictEqual(line, `HOME=${homedir()} GOWORK=off GOOS=unset GOARCH=unset`);
});

it('a Go older than go.mod\'s go line is CONTROLPLANE_GO_TOO_OLD naming both versions, before any build (Go 1.19 only lists go.mod\'s "errors")', async () => {
  const { dir, debianEtcd, env } = await sandbox();
  await expectRejection(
    buildBinaries({
      cacheDir: join(dir, 'cache'),
      env: { ...env, FAKE_GOVERSION: 'go1.19.8' },
      debianEtcd,
    }),
    coded(
      (e) =>
        e.code === 'CONTROLPLANE_GO_TOO_OLD' &&
        /go1\.19\.8/.test(e.message ?? '') &&
        /Go >= 1\.24/.test(e.message ?? '') &&
        /TEST_ASSET_KUBE_APISERVER/.test(e.message ?? ''),
    ),
  );
  await expectRejection(
    readFile(join(dir, 'go-calls'), 'utf8'),
    { code: 'ENOENT' },
    'nothing was built',
  );
});

for (const [failure, said] of [
  ['kill', /go build of etcd v3\.5\.21 was killed by SIGKILL$/],
  ['nospace', /no space left on device/],
] as const) {
  it(`an etcd build that ends for this machine's sake (${failure === 'kill' ? 'go killed' : 'a full disk'}) is an error, never 24 hours of Debian's etcd`, async () => {
    const { dir, debianEtcd, env } = await sandbox();
    await writeFile(debianEtcd, '#!/bin/sh\n', { mode: 0o755 });
    await expectRejection(
      buildBinaries({
        cacheDir: join(dir, 'cache'),
        env: { ...env, FAKE_ETCD_FAILURE: failure },
        debianEtcd,
      }),
      coded(
        (e) =>
          e.code === 'CONTROLPLANE_BUILD_FAILED' &&
          said.test(e.message ?? '') &&
          !/etcd-server|exit null/.test(e.message ?? ''),
      ),
    );
    await expectRejection(
      stat(join(binariesDir(join(dir, 'cache')), 'etcd-fallback')),
      { code: 'ENOENT' },
      'no fallback remembered',
    );
  });
}

it('a binary go built that does not run here (one for another machine) is not cached: CONTROLPLANE_BUILD_FAILED saying so, and the next build tries again', async () => {
  const { dir, debianEtcd, env } = await sandbox();
  await writeFile(debianEtcd, '#!/bin/sh\n', { mode: 0o755 });
  await expectRejection(
    buildBinaries({
      cacheDir: join(dir, 'cache'),
      env: { ...env, FAKE_GO_OUTPUT: 'foreign' },
      debianEtcd,
    }),
    coded(
      (e) =>
        e.code === 'CONTROLPLANE_BUILD_FAILED' &&
        /the kube-apiserver go built does not run here as kube-apiserver v1\.33\.13 \(kube-apiserver --version: exit \d+.*\); it was not cached.*GOARCH/s.test(
          e.message ?? '',
        ),
    ),
  );
  assert.deepStrictEqual(
    await readdir(binariesDir(join(dir, 'cache'))),
    [],
    'nothing cached, nothing left',
  );
  const built = await buildBinaries({
    cacheDir: join(dir, 'cache'),
    env: { ...env, FAKE_ETCD_FAILURE: 'none' },
    debianEtcd,
  });
  assert.strictEqual(built.etcdSource, 'go-build');
  assert.deepStrictEqual((await readFile(join(dir, 'go-calls'), 'utf8')).trim().split('\n'), [
    'k8s.io/kubernetes/cmd/kube-apiserver',
    'k8s.io/kubernetes/cmd/kube-apiserver',
    'go.etcd.io/etcd/server/v3',
  ]);
});

it("binaries an older voe cached for the same versions but another recipe are never used: this recipe's are built beside them", async () => {
  const { dir, debianEtcd, env } = await sandbox();
  const older = join(dir, 'cache', 'bin', 'kubernetes-v1.33.13-etcd-v3.5.21');
  await mkdir(older, { recursive: true });
  for (const name of ['kube-apiserver', 'etcd'])
    await writeFile(join(older, name), '#!/bin/sh\necho stale\n', { mode: 0o755 });
  const built = await buildBinaries({
    cacheDir: join(dir, 'cache'),
    env: { ...env, FAKE_ETCD_FAILURE: 'none' },
    debianEtcd,
  });
  assert.notStrictEqual(dirname(built.kubeApiServer), older);
  assert.match(
    dirname(built.kubeApiServer),
    /\/kubernetes-v1\.33\.13-etcd-v3\.5\.21-[0-9a-f]{12}$/,
  );
  assert.deepStrictEqual((await readFile(join(dir, 'go-calls'), 'utf8')).trim().split('\n'), [
    'k8s.io/kubernetes/cmd/kube-apiserver',
    'go.etcd.io/etcd/server/v3',
  ]);
});
