import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { eventually } from '../../support/eventually.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binariesDir, buildBinaries } from '../../../src/controlplane/build-binaries.js';
import { fakeGoSandbox } from '../../support/fake-go.js';

const fixture = fileURLToPath(
  new URL('../../support/fixtures/build-binaries-then-wait.js', import.meta.url),
);

/** Running: it exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
): Promise<void> {
  await eventually(check, timeoutMs, what);
}

/** The fake go's pid and its child's, once the build under way in `dir` started them. */
async function goPids(dir: string): Promise<number[]> {
  await until('go runs', async () =>
    (await readFile(join(dir, 'go-pids'), 'utf8').catch(() => '')).includes(' '),
  );
  return (await readFile(join(dir, 'go-pids'), 'utf8')).trim().split(/\s+/).map(Number);
}

/** A build interrupted in a voe process of its own (the fixture), go working for `seconds`. */
async function interruptedBuild(seconds: number) {
  const sandbox = await fakeGoSandbox();
  await writeFile(sandbox.debianEtcd, '#!/bin/sh\n', { mode: 0o755 });
  const child = spawn(process.execPath, [fixture, sandbox.dir], {
    env: { ...sandbox.env, FAKE_GO_SLEEP: String(seconds) },
    stdio: 'ignore',
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const pids = await goPids(sandbox.dir);
  onCleanup(async () => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  return { ...sandbox, child, exited, pids };
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  it(`a build stopped by ${signal} takes its go (and go's own processes) with it; the next build starts at once and clean`, async () => {
    const { dir, env, debianEtcd, child, exited, pids } = await interruptedBuild(60);
    child.kill(signal);
    const [, endedBy] = await exited;
    assert.strictEqual(endedBy, signal, 'voe still ends by the signal');
    await until('go and its child are gone', () => pids.every((pid) => !alive(pid)), 5_000);
    const lines: string[] = [];
    const built = await buildBinaries({
      cacheDir: join(dir, 'cache'),
      env,
      debianEtcd,
      onProgress: (line) => lines.push(line),
    });
    assert.strictEqual(built.etcdSource, 'debian');
    assert.ok(!lines.some((line) => /waiting for it/.test(line)), lines.join('\n'));
    assert.deepStrictEqual(
      (await readdir(binariesDir(join(dir, 'cache')))).sort(),
      ['etcd-fallback', 'kube-apiserver'],
      'no half-built output, go work directory or lock left',
    );
  });
}

it('a build killed with SIGKILL: the go it left running keeps the build lock until it ends, so the next build waits instead of building beside it, then removes what that go left', async () => {
  const { dir, env, debianEtcd, child, exited, pids } = await interruptedBuild(3);
  child.kill('SIGKILL');
  await exited;
  assert.ok(alive(pids[0]!), 'go outlives a voe killed with SIGKILL (nothing can stop it then)');
  const lines: string[] = [];
  await buildBinaries({
    cacheDir: join(dir, 'cache'),
    env,
    debianEtcd,
    onProgress: (line) => lines.push(line),
  });
  assert.ok(
    lines.some((line) => /is building the control plane binaries; waiting for it/.test(line)),
    lines.join('\n'),
  );
  const log = (await readFile(join(dir, 'go-log'), 'utf8')).trim().split('\n');
  assert.deepStrictEqual(
    log,
    [`start ${pids[0]}`, `end ${pids[0]}`],
    'one go at a time (the next one, not sleeping, logs nothing)',
  );
  assert.deepStrictEqual(
    (await readdir(binariesDir(join(dir, 'cache')))).sort(),
    ['etcd-fallback', 'kube-apiserver'],
    "the orphaned go's output and work directory were removed",
  );
});

it('what builds interrupted long ago left (outputs never renamed, go work directories) is removed by the next build', async () => {
  const { dir, env, debianEtcd } = await fakeGoSandbox();
  await writeFile(debianEtcd, '#!/bin/sh\n', { mode: 0o755 });
  const bin = binariesDir(join(dir, 'cache'));
  await mkdir(join(bin, '.go-tmp', 'go-build123', 'b001', 'exe'), { recursive: true });
  await writeFile(join(bin, '.go-tmp', 'go-build123', 'b001', 'exe', 'a.out'), 'half a binary');
  await writeFile(join(bin, 'kube-apiserver.tmp-4194304'), 'half a binary', { mode: 0o755 });
  await writeFile(join(bin, 'etcd.tmp-17'), 'a whole binary nobody renamed', { mode: 0o755 });
  await buildBinaries({ cacheDir: join(dir, 'cache'), env, debianEtcd });
  assert.deepStrictEqual((await readdir(bin)).sort(), ['etcd-fallback', 'kube-apiserver']);
  const tmpdirs = (await readFile(join(dir, 'go-tmpdirs'), 'utf8')).trim().split('\n');
  assert.ok(
    tmpdirs.every((line) => line === `GOTMPDIR=${join(bin, '.go-tmp')}`),
    tmpdirs.join('\n'),
  );
});
