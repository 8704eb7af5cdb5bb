/**
 * `voe cluster start`/`stop` judge pid files by what the pid runs: a pid file left behind by a
 * control plane that is gone may name a pid another process reuses since.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { controlPlaneTestEnv } from '../support/use-control-plane.js';

const run = promisify(execFile);
const voe = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

test('voe cluster stop where nothing runs says so; stale pid files naming other processes are neither killed nor in the way of start', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-cluster-pids-'));
  t.after(async () => {
    await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  const nothing = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', join(dir, 'never-started')]);
  assert.equal(nothing.stdout, `no control plane runs in ${join(dir, 'never-started')}; nothing to stop\n`);

  // pid 1 (init) and this test process stand in for pids reused by unrelated processes.
  for (const [file, pid] of [['voe-cluster.pid', 1], ['etcd.pid', process.pid], ['kube-apiserver.pid', process.pid]] as const) {
    await writeFile(join(dir, file), `${pid}\n`);
  }
  const stale = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.equal(stale.stdout, `no control plane runs in ${dir}; nothing to stop\n`, 'init and the test process were not taken for it');

  await writeFile(join(dir, 'voe-cluster.pid'), '1\n');
  const started = await run(process.execPath, [voe, 'cluster', 'start', '--dir', dir], { timeout: 180_000, env: controlPlaneTestEnv() });
  assert.match(started.stdout, /^control plane ready at /m);
  assert.notEqual((await readFile(join(dir, 'voe-cluster.pid'), 'utf8')).trim(), '1');
  const stopped = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.equal(stopped.stdout, `control plane in ${dir} stopped\n`);
});

test('voe cluster stop finds a supervisor started by hand with a relative --dir (read from its working directory), and only that one', async (t) => {
  const parent = await mkdtemp(join(tmpdir(), 'voe-cluster-relative-'));
  const dir = join(parent, 'cp');
  await mkdir(dir);
  // Stand-ins for `voe cluster run --dir cp` typed in `parent` and in another directory (the same
  // words mean another directory there): processes whose command lines say so.
  const standIn = (cwd: string) => spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)', '--', 'cluster', 'run', '--dir', 'cp'], { cwd, stdio: 'ignore' });
  const elsewhere = standIn(tmpdir());
  const here = standIn(parent);
  t.after(async () => {
    elsewhere.kill('SIGKILL');
    here.kill('SIGKILL');
    await rm(parent, { recursive: true, force: true });
  });
  const exited = new Promise<void>((resolve) => here.once('exit', () => resolve()));
  await writeFile(join(dir, 'voe-cluster.pid'), `${elsewhere.pid}\n`);
  const other = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.equal(other.stdout, `no control plane runs in ${dir}; nothing to stop\n`);
  assert.equal(elsewhere.exitCode, null, 'the one started elsewhere still runs');
  await writeFile(join(dir, 'voe-cluster.pid'), `${here.pid}\n`);
  const stopped = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.equal(stopped.stdout, `control plane in ${dir} stopped\n`);
  await exited;
});
