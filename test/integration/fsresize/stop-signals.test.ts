/**
 * voe stopped while a grow tool runs, with real processes: resize2fs growing a 1 GiB ext4 to
 * 8 TiB offline takes a few seconds, long enough to signal voe in the middle of it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { processStartTime } from '../../../src/lock/index.js';
import { GiB, readChecksums, sh, writeChecksummedFiles } from '../../support/loop-device.js';
import { dumpe2fsBytes, setup } from './fixtures.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const TiB = 1024 * GiB;
const GROWN = 8 * TiB;

interface Voe { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; at: number }> }

function startVoe(args: string[]): Voe {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr!.on('data', (c: Buffer) => { stderr += c.toString(); });
  const done = once(child, 'close').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null, stdout, stderr, at: Date.now() }));
  return { child, done };
}

function alive(pid: number): boolean {
  return processStartTime(pid) !== null;
}

/** When `pid` ends (polled every 10 ms). */
async function gone(pid: number): Promise<number> {
  while (alive(pid)) await new Promise((r) => setTimeout(r, 10));
  return Date.now();
}

/** The pid of the tool named `name` the lock file records as running (helper=), once it does. */
async function runningTool(lockFile: string, name: string): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const pid = Number(/ helper=(\d+)/.exec(await readFile(lockFile, 'utf8').catch(() => ''))?.[1]);
    if (pid && (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim() === name) return pid;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${name} never showed up in ${lockFile}`);
}

/** A 1 GiB ext4 a workload used (so e2fsck -f -p runs first), on a device grown to 8 TiB; the path of its lock file. */
async function bigUsedExt4(t: TestContext) {
  const context = await setup(t);
  const loop = await context.scratch.attach(GiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  const mnt = await context.scratch.directory('mnt');
  await loop.mount(mnt);
  const sums = await writeChecksummedFiles(mnt, 2);
  await loop.unmount(mnt);
  await loop.growBacking(GROWN);
  const majorMinor = (await readFile(`/sys/class/block/${basename(loop.device)}/dev`, 'utf8')).trim();
  return { ...context, loop, mnt, sums, lockFile: join(context.lockDirectory, `${majorMinor.replace(':', '-')}.lock`) };
}

test('voe killed (SIGKILL) during resize2fs: resize2fs runs to its end and keeps the device locked; the next voe waits for it, then finds the work done', async (t) => {
  const { lockDirectory, lockFile, loop, mnt, sums } = await bigUsedExt4(t);
  const args = ['fsresize', 'grow', '--device', loop.device, '--json', '--lock-dir', lockDirectory];
  const first = startVoe(args);
  const tool = await runningTool(lockFile, 'resize2fs');
  first.child.kill('SIGKILL');
  assert.equal((await first.done).signal, 'SIGKILL');
  const toolEnded = gone(tool);
  assert.ok(alive(tool), 'resize2fs outlives the killed voe (too fast on this machine to test?)');
  assert.match(await readFile(lockFile, 'utf8'), new RegExp(` helper=${tool}:\\d+\\n$`), 'the lock still names the running tool');

  const second = startVoe(args);
  const result = await second.done;
  const endedAt = await toolEnded;
  assert.equal(result.code, 0, result.stderr);
  assert.ok(endedAt <= result.at, 'the second voe finished only after resize2fs had');
  const json = JSON.parse(result.stdout);
  assert.equal(json.action, 'noop', json.reason);
  assert.match(json.reason, /already fills the device/);
  assert.equal(json.beforeBytes, GROWN);
  assert.equal(await dumpe2fsBytes(loop.device), GROWN);
  assert.match(await sh('dumpe2fs', ['-h', loop.device]), /^Filesystem state:\s+clean$/m);
  await assert.rejects(readFile(lockFile), { code: 'ENOENT' }, 'the lock was released');
  await loop.mount(mnt);
  assert.deepEqual(await readChecksums(mnt, sums.keys()), sums);
});
