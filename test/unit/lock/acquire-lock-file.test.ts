import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLockFile } from '../../../src/lock/index.js';

const errors = {
  busy: (pid: string) => new Error(`busy: held by ${pid}`),
  cannotCreate: (code: string) => new Error(`cannot create: ${code}`),
};

async function scratch(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-lock-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('one holder at a time; the next one gets it after release', async (t) => {
  const lock = join(await scratch(t), 'x.lock');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 5000, ...errors });
  assert.match(await readFile(lock, 'utf8'), new RegExp(`^${process.pid} `));
  let second = false;
  const waiting = acquireLockFile(lock, { deadline: Date.now() + 5000, pollMs: 10, ...errors }).then((r) => { second = true; return r; });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(second, false, 'the second waits while the first holds the lock');
  await release();
  const releaseSecond = await waiting;
  assert.equal(second, true);
  await releaseSecond();
});

test('a lock held by a live process past the deadline gives the busy error, naming the holder', async (t) => {
  const lock = join(await scratch(t), 'x.lock');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 5000, ...errors });
  let waitedFor: string | undefined;
  await assert.rejects(acquireLockFile(lock, { deadline: Date.now() + 100, pollMs: 10, ...errors, onWait: (pid) => { waitedFor = pid; } }),
    new RegExp(`busy: held by ${process.pid}`));
  assert.equal(waitedFor, String(process.pid));
  await release();
});

test('a lock whose holder died is taken over at once', async (t) => {
  const lock = join(await scratch(t), 'x.lock');
  const child = spawn(process.execPath, ['-e', '0']);
  const deadPid = await new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)));
  await writeFile(lock, `${deadPid} some-token\n`);
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  assert.match(await readFile(lock, 'utf8'), new RegExp(`^${process.pid} `));
  await release();
});

test('release leaves a lock that is no longer ours alone', async (t) => {
  const lock = join(await scratch(t), 'x.lock');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  await writeFile(lock, '1 someone-else\n');
  await release();
  assert.equal(await readFile(lock, 'utf8'), '1 someone-else\n');
});

test('a directory that cannot be created gives the cannot-create error', async (t) => {
  const dir = await scratch(t);
  await writeFile(join(dir, 'file'), '');
  await assert.rejects(acquireLockFile(join(dir, 'file', 'x.lock'), { deadline: Date.now() + 100, ...errors }), /cannot create: (ENOTDIR|EEXIST)/);
});
