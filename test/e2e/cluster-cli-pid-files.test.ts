/**
 * `voe cluster start`/`stop` judge pid files by what the pid runs: a pid file left behind by a
 * control plane that is gone may name a pid another process reuses since.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
