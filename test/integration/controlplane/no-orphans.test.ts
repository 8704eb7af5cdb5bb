import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const fixture = fileURLToPath(new URL('../../support/fixtures/start-control-plane-then.js', import.meta.url));

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

async function gone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await sleep(100);
  return !alive(pid);
}

async function startFixture(mode: 'wait' | 'crash') {
  const child = spawn(process.execPath, [fixture, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  while (!out.includes('\n')) {
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  const line = out.split('\n')[0] ?? '';
  assert.ok(line.startsWith('{'), `fixture printed its pids (got ${JSON.stringify(out)})`);
  return { child, pids: JSON.parse(line) as { etcd: number; apiServer: number; dir: string } };
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`an interrupted test process (${signal}) leaves no etcd, kube-apiserver or data directory behind`, async () => {
    const { child, pids } = await startFixture('wait');
    assert.ok(alive(pids.etcd) && alive(pids.apiServer));
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
    assert.ok(await gone(pids.apiServer), 'kube-apiserver stopped');
    assert.ok(await gone(pids.etcd), 'etcd stopped');
    assert.equal(existsSync(pids.dir), false, `its temporary directory ${pids.dir} (etcd data, ~120 MB) was removed`);
  });
}

test('a test process that crashes leaves no etcd, kube-apiserver or data directory behind', async () => {
  const { child, pids } = await startFixture('crash');
  const [code] = await once(child, 'exit') as [number | null];
  assert.notEqual(code, 0);
  assert.ok(await gone(pids.apiServer), 'kube-apiserver stopped');
  assert.ok(await gone(pids.etcd), 'etcd stopped');
  assert.equal(existsSync(pids.dir), false, `its temporary directory ${pids.dir} (etcd data, ~120 MB) was removed`);
});
