/**
 * `voe cluster start`/`stop` judge pid files by what the pid runs: a pid file left behind by a
 * control plane that is gone may name a pid another process reuses since.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../support/cleanup.js';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { eventually } from '../support/eventually.js';
import { controlPlaneTestEnv } from '../support/use-control-plane.js';

const run = promisify(execFile);
const voe = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

it('voe cluster stop where nothing runs says so; stale pid files naming other processes are neither killed nor in the way of start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-cluster-pids-'));
  onCleanup(async () => {
    await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  const nothing = await run(process.execPath, [
    voe,
    'cluster',
    'stop',
    '--dir',
    join(dir, 'never-started'),
  ]);
  assert.strictEqual(
    nothing.stdout,
    `no control plane runs in ${join(dir, 'never-started')}; nothing to stop\n`,
  );

  // pid 1 (init) and this test process stand in for pids reused by unrelated processes.
  for (const [file, pid] of [
    ['voe-cluster.pid', 1],
    ['etcd.pid', process.pid],
    ['kube-apiserver.pid', process.pid],
  ] as const) {
    await writeFile(join(dir, file), `${pid}\n`);
  }
  const stale = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.strictEqual(
    stale.stdout,
    `no control plane runs in ${dir}; nothing to stop\n`,
    'init and the test process were not taken for it',
  );

  await writeFile(join(dir, 'voe-cluster.pid'), '1\n');
  const started = await run(process.execPath, [voe, 'cluster', 'start', '--dir', dir], {
    timeout: 180_000,
    env: controlPlaneTestEnv(),
  });
  assert.match(started.stdout, /^control plane ready at /m);
  assert.notStrictEqual((await readFile(join(dir, 'voe-cluster.pid'), 'utf8')).trim(), '1');
  const stopped = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.strictEqual(stopped.stdout, `control plane in ${dir} stopped\n`);
});

it('voe cluster stop finds a supervisor started by hand with a relative --dir (read from its working directory), and only that one', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'voe-cluster-relative-'));
  const dir = join(parent, 'cp');
  await mkdir(dir);
  // Stand-ins for `voe cluster run --dir cp` typed in `parent` and in another directory (the same
  // words mean another directory there): processes whose command lines say so.
  const standIn = (cwd: string) =>
    spawn(
      process.execPath,
      ['-e', 'setInterval(() => {}, 60_000)', '--', 'cluster', 'run', '--dir', 'cp'],
      { cwd, stdio: 'ignore' },
    );
  const elsewhere = standIn(tmpdir());
  const here = standIn(parent);
  onCleanup(async () => {
    elsewhere.kill('SIGKILL');
    here.kill('SIGKILL');
    await rm(parent, { recursive: true, force: true });
  });
  const exited = new Promise<void>((resolve) => here.once('exit', () => resolve()));
  await writeFile(join(dir, 'voe-cluster.pid'), `${elsewhere.pid}\n`);
  const other = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.strictEqual(other.stdout, `no control plane runs in ${dir}; nothing to stop\n`);
  assert.isNull(elsewhere.exitCode, 'the one started elsewhere still runs');
  await writeFile(join(dir, 'voe-cluster.pid'), `${here.pid}\n`);
  const stopped = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.strictEqual(stopped.stdout, `control plane in ${dir} stopped\n`);
  await exited;
});

/** Running (not a zombie) a command that names `dir`: a process of that directory's control plane. */
function runsIn(pid: number, dir: string): boolean {
  try {
    if (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] === 'Z') return false;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
  } catch {
    return false;
  }
}

it('after a killed supervisor, start, run and demo --dir refuse at once while its etcd and kube-apiserver still run (pid files untouched); stop then stops both', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-cluster-orphans-'));
  const pids: Record<string, number> = {};
  onCleanup(async () => {
    await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]).catch(() => undefined);
    // Whatever stop missed (the bug this test is about) must not outlive the test.
    for (const pid of Object.values(pids)) if (runsIn(pid, dir)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });
  await run(process.execPath, [voe, 'cluster', 'start', '--dir', dir], {
    timeout: 180_000,
    env: controlPlaneTestEnv(),
  });
  for (const file of ['voe-cluster.pid', 'etcd.pid', 'kube-apiserver.pid'])
    pids[file] = Number.parseInt(await readFile(join(dir, file), 'utf8'), 10);
  // SIGKILL cannot be caught: the supervisor leaves etcd and kube-apiserver running.
  process.kill(pids['voe-cluster.pid']!, 'SIGKILL');
  await eventually(
    () => !runsIn(pids['voe-cluster.pid']!, dir),
    10_000,
    'the supervisor to be gone',
  );
  assert.ok(
    runsIn(pids['etcd.pid']!, dir) && runsIn(pids['kube-apiserver.pid']!, dir),
    'its etcd and kube-apiserver still run',
  );

  const refusal = new RegExp(
    `^voe: CONTROLPLANE_ALREADY_RUNNING: processes of an earlier control plane still run for ${dir}: etcd \\(pid ${pids['etcd.pid']}\\), kube-apiserver \\(pid ${pids['kube-apiserver.pid']}\\); use 'voe cluster stop --dir ${dir}' first$`,
    'm',
  );
  for (const command of [
    ['cluster', 'start'],
    ['cluster', 'run'],
    ['demo', '--local'],
  ]) {
    const refused = await run(process.execPath, [voe, ...command, '--dir', dir], {
      timeout: 180_000,
      env: controlPlaneTestEnv(),
    }).then(
      () => assert.fail(`${command.join(' ')} was not refused`),
      (error: { code?: number; stderr?: string }) => error,
    );
    assert.strictEqual(refused.code, 2, command.join(' '));
    assert.match(refused.stderr ?? '', refusal, command.join(' '));
  }
  for (const file of ['etcd.pid', 'kube-apiserver.pid']) {
    assert.strictEqual(
      Number.parseInt(await readFile(join(dir, file), 'utf8'), 10),
      pids[file],
      `${file} still names the running process`,
    );
  }
  assert.ok(
    runsIn(pids['etcd.pid']!, dir) && runsIn(pids['kube-apiserver.pid']!, dir),
    'nothing was stopped by the refusals',
  );

  const stopped = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.strictEqual(stopped.stdout, `control plane in ${dir} stopped\n`);
  await eventually(
    () => !runsIn(pids['etcd.pid']!, dir) && !runsIn(pids['kube-apiserver.pid']!, dir),
    10_000,
    'etcd and kube-apiserver to be gone',
  );
});
