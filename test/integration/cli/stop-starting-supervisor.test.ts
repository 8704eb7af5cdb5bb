import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopStartingSupervisor } from '../../../src/cli/stop-starting-supervisor.js';
import { hasEnded, readProcessStat } from '../../../src/lock/index.js';
import { eventually } from '../../support/eventually.js';

// stopStartingSupervisor (`voe cluster start` interrupted while its supervisor starts): real
// processes stand in for the supervisor, etcd and kube-apiserver, their command lines naming DIR
// as the real ones do.

const runs = (pid: number): boolean => {
  const stat = readProcessStat(pid);
  return stat !== null && !hasEnded(stat);
};

/** The running processes whose command line names `path`. */
function processesNaming(path: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(path) && runs(pid);
      } catch {
        return false;
      }
    });
}

/** A process whose command line names `path` (as etcd's and kube-apiserver's name files in DIR), running until killed. */
function standIn(path: string, detached = false): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1e9)', path], {
    stdio: 'ignore',
    detached,
  });
  child.unref();
  return child;
}

/**
 * A supervisor of DIR that started "etcd" (etcd.pid) and, on SIGTERM, starts "kube-apiserver",
 * writes kube-apiserver.pid and dies: what the real one may do when the stop comes as it starts
 * kube-apiserver. `leave` says whether its kube-apiserver still runs then, or was killed.
 */
async function supervisor(dir: string, leave: boolean): Promise<{ pid: number; etcd: number }> {
  const script = `
    const { spawn } = require('node:child_process');
    const { writeFileSync } = require('node:fs');
    const dir = process.argv[1];
    const stand = () => spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1e9)', dir + '/kube-apiserver.log'], { stdio: 'ignore', detached: true });
    const etcd = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1e9)', dir + '/etcd.log'], { stdio: 'ignore' });
    writeFileSync(dir + '/etcd.pid', etcd.pid + '\\n');
    process.on('SIGTERM', () => {
      etcd.kill('SIGKILL');
      const apiServer = stand();
      writeFileSync(dir + '/kube-apiserver.pid', apiServer.pid + '\\n');
      if (${!leave}) apiServer.kill('SIGKILL');
      process.exit(143);
    });
    writeFileSync(dir + '/started', '');
    setInterval(() => undefined, 1e9);`;
  const child = spawn(process.execPath, ['-e', script, dir], { stdio: 'ignore' });
  await eventually(
    () => existsSync(join(dir, 'started')),
    30_000,
    'the stand-in supervisor to start',
  );
  const etcd = Number(await readFile(join(dir, 'etcd.pid'), 'utf8'));
  return { pid: child.pid!, etcd };
}

for (const leave of [true, false]) {
  it(`a supervisor stopped as it starts kube-apiserver, its pid file written just before it died (${leave ? 'that kube-apiserver still running' : 'already killed'}): stopped, and no pid file is left`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-stop-starting-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const { pid, etcd } = await supervisor(dir, leave);
    const apiServerLog = join(dir, 'kube-apiserver.log');
    onCleanup(() => {
      for (const p of [pid, etcd, ...processesNaming(apiServerLog)])
        if (runs(p)) process.kill(p, 'SIGKILL');
    });
    // When the stop comes, only etcd has a pid file: kube-apiserver comes with the stop.
    assert.isFalse(existsSync(join(dir, 'kube-apiserver.pid')));
    await stopStartingSupervisor(dir, pid);
    assert.deepStrictEqual(
      processesNaming(apiServerLog),
      [],
      'the kube-apiserver it started is stopped',
    );
    assert.isFalse(existsSync(join(dir, 'etcd.pid')), 'etcd.pid is not left behind');
    assert.isFalse(
      existsSync(join(dir, 'kube-apiserver.pid')),
      'kube-apiserver.pid is not left behind',
    );
    assert.isFalse(runs(pid), 'the supervisor is stopped');
    assert.isFalse(runs(etcd), 'its etcd is stopped');
  });
}

it("a pid file naming a process of DIR older than the supervisor (an earlier control plane's, which it refused to replace) is left alone, and that process runs on", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-stop-starting-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const earlier = standIn(join(dir, 'kube-apiserver.log'), true);
  onCleanup(() => {
    if (runs(earlier.pid!)) process.kill(earlier.pid!, 'SIGKILL');
  });
  await writeFile(join(dir, 'kube-apiserver.pid'), `${earlier.pid}\n`);
  // Started a clock tick later than the earlier process (/proc's start times count ticks of 10 ms).
  await new Promise((resolve) => setTimeout(resolve, 50));
  const script = `process.on('SIGTERM', () => process.exit(143)); require('node:fs').writeFileSync(process.argv[1] + '/started', ''); setInterval(() => undefined, 1e9);`;
  const sup = spawn(process.execPath, ['-e', script, dir], { stdio: 'ignore' });
  onCleanup(() => {
    if (runs(sup.pid!)) process.kill(sup.pid!, 'SIGKILL');
  });
  await eventually(
    () => existsSync(join(dir, 'started')),
    30_000,
    'the stand-in supervisor to start',
  );
  await stopStartingSupervisor(dir, sup.pid);
  assert.isFalse(runs(sup.pid!), 'the supervisor is stopped');
  assert.isTrue(runs(earlier.pid!), 'the earlier kube-apiserver runs on');
  assert.strictEqual(
    (await readFile(join(dir, 'kube-apiserver.pid'), 'utf8')).trim(),
    String(earlier.pid),
  );
});
