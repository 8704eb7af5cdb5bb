import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { eventually } from '../../support/eventually.js';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane } from '../../../src/controlplane/index.js';
import { controlPlaneTestEnv, testCacheDir } from '../../support/use-control-plane.js';

const fixture = fileURLToPath(
  new URL('../../support/fixtures/start-control-plane-then.js', import.meta.url),
);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  await eventually(() => !alive(pid), timeoutMs).catch(() => undefined);
  return !alive(pid);
}

/** The fixture's control plane goes into a temporary directory under `tmp` (its TMPDIR; default this process's). */
async function startFixture(mode: 'wait' | 'crash', tmp?: string) {
  const child = spawn(process.execPath, [fixture, mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(tmp ? { env: { ...process.env, TMPDIR: tmp } } : {}),
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  await eventually(() => out.includes('\n'), 60_000, 'the fixture to print its pids', {
    intervalMs: 50,
    giveUp: () =>
      child.exitCode === null ? undefined : `the fixture exited, printing ${JSON.stringify(out)}`,
  });
  const line = out.split('\n')[0] ?? '';
  assert.ok(line.startsWith('{'), `fixture printed its pids (got ${JSON.stringify(out)})`);
  return { child, pids: JSON.parse(line) as { etcd: number; apiServer: number; dir: string } };
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  it(`an interrupted test process (${signal}) leaves no etcd, kube-apiserver or data directory behind`, async () => {
    const { child, pids } = await startFixture('wait');
    assert.ok(alive(pids.etcd) && alive(pids.apiServer));
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
    assert.ok(await gone(pids.apiServer), 'kube-apiserver stopped');
    assert.ok(await gone(pids.etcd), 'etcd stopped');
    assert.isFalse(
      existsSync(pids.dir),
      `its temporary directory ${pids.dir} (etcd data, ~120 MB) was removed`,
    );
  });
}

it('a test process that crashes leaves no etcd, kube-apiserver or data directory behind', async () => {
  const { child, pids } = await startFixture('crash');
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.notStrictEqual(code, 0);
  assert.ok(await gone(pids.apiServer), 'kube-apiserver stopped');
  assert.ok(await gone(pids.etcd), 'etcd stopped');
  assert.isFalse(
    existsSync(pids.dir),
    `its temporary directory ${pids.dir} (etcd data, ~120 MB) was removed`,
  );
});

it('a test process killed with SIGKILL (no handler runs) leaves etcd and kube-apiserver running: the next control plane started in a temporary directory stops them and removes their directory, and touches no other', async () => {
  // All in a TMPDIR of this test's own: other test files start control planes meanwhile, and the
  // first of them would otherwise sweep the killed one's directory before this test's start does.
  const parent = await mkdtemp(join(tmpdir(), 'voe-orphans-'));
  const killed = await startFixture('wait', parent);
  const living = await startFixture('wait', parent);
  const foreign = await mkdtemp(join(parent, 'voe-cp-'));
  onCleanup(async () => {
    living.child.kill('SIGTERM');
    await once(living.child, 'exit').catch(() => undefined);
    for (const pid of [killed.pids.etcd, killed.pids.apiServer])
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    await rm(parent, { recursive: true, force: true });
  });
  assert.ok(
    killed.pids.dir.startsWith(`${parent}/`) && living.pids.dir.startsWith(`${parent}/`),
    'the fixtures made their directories in the TMPDIR given',
  );
  killed.child.kill('SIGKILL');
  await once(killed.child, 'exit');
  await sleep(500);
  assert.ok(
    alive(killed.pids.etcd) && alive(killed.pids.apiServer),
    'orphaned: SIGKILL cannot be caught',
  );
  const progress: string[] = [];
  const tmp = process.env['TMPDIR'];
  process.env['TMPDIR'] = parent; // os.tmpdir(), where startControlPlane makes its directory and sweeps
  try {
    const cp = await startControlPlane({
      cacheDir: testCacheDir(),
      env: controlPlaneTestEnv(),
      onProgress: (line) => progress.push(line),
    });
    await cp.stop();
  } finally {
    if (tmp === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = tmp;
  }
  assert.ok(await gone(killed.pids.apiServer), 'the orphaned kube-apiserver was stopped');
  assert.ok(await gone(killed.pids.etcd), 'the orphaned etcd was stopped');
  assert.isFalse(existsSync(killed.pids.dir), `${killed.pids.dir} (etcd data, keys) was removed`);
  assert.ok(
    progress.some((line) =>
      line.includes(`removed ${killed.pids.dir} and stopped its etcd and kube-apiserver`),
    ),
    progress.join('\n'),
  );
  assert.ok(
    alive(living.pids.etcd) && alive(living.pids.apiServer) && existsSync(living.pids.dir),
    "a live process's control plane is left alone",
  );
  assert.ok(existsSync(foreign), "a directory without an owner lock (another voe's) is left alone");
});
