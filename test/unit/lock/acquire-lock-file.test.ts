import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireLockFile } from '../../../src/lock/index.js';

const LOCK_MODULE = fileURLToPath(new URL('../../../src/lock/index.js', import.meta.url));

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  return new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)));
}

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

test('a lock whose holder died is taken over at once (a lock without a PID namespace, from an older voe, is judged)', async (t) => {
  const lock = join(await scratch(t), 'x.lock');
  await writeFile(lock, `${await deadPid()} some-token\n`);
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

test('the lock file records the pid, a token and the PID namespace', async (t) => {
  const lock = join(await scratch(t), 'x.lock');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  assert.match(await readFile(lock, 'utf8'), new RegExp(`^${process.pid} [0-9a-f-]{36} ${readlinkSync('/proc/self/ns/pid').replace(/[[\]]/g, '\\$&')}\n$`));
  await release();
});

test('a dead pid recorded in another PID namespace is not judged: the lock is waited for, never taken over', async (t) => {
  const lock = join(await scratch(t), 'x.lock');
  const stale = `${await deadPid()} other-token pid:[1]\n`;
  await writeFile(lock, stale);
  await assert.rejects(acquireLockFile(lock, { deadline: Date.now() + 150, pollMs: 10, ...errors }), /busy: held by \d+/);
  assert.equal(await readFile(lock, 'utf8'), stale);
});

test('a dead holder in our PID namespace is taken over', async (t) => {
  const lock = join(await scratch(t), 'x.lock');
  await writeFile(lock, `${await deadPid()} some-token ${readlinkSync('/proc/self/ns/pid')}\n`);
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  assert.match(await readFile(lock, 'utf8'), new RegExp(`^${process.pid} `));
  await release();
});

test('a takeover marker left by a process that died mid-takeover is cleared after 10 s', async (t) => {
  const lock = join(await scratch(t), 'x.lock');
  await writeFile(lock, `${await deadPid()} some-token\n`);
  await writeFile(`${lock}.takeover`, `${await deadPid()} marker\n`);
  const old = new Date(Date.now() - 11_000);
  await utimes(`${lock}.takeover`, old, old);
  const release = await acquireLockFile(lock, { deadline: Date.now() + 1000, pollMs: 10, ...errors });
  assert.match(await readFile(lock, 'utf8'), new RegExp(`^${process.pid} `));
  await release();
});

test('processes racing for one stale lock hold it one at a time', async (t) => {
  const dir = await scratch(t);
  const lock = join(dir, 'x.lock');
  const log = join(dir, 'log');
  await writeFile(log, '');
  await writeFile(lock, `${await deadPid()} stale-token\n`);
  const holder = `
    const { acquireLockFile } = await import(${JSON.stringify(LOCK_MODULE)});
    const { appendFile } = await import('node:fs/promises');
    const errors = { busy: (p) => new Error('busy ' + p), cannotCreate: (c) => new Error('cannot ' + c) };
    const release = await acquireLockFile(${JSON.stringify(lock)}, { deadline: Date.now() + 20000, pollMs: 5, ...errors });
    await appendFile(${JSON.stringify(log)}, 'enter ' + process.pid + '\\n');
    await new Promise((r) => setTimeout(r, 20));
    await appendFile(${JSON.stringify(log)}, 'exit ' + process.pid + '\\n');
    await release();`;
  const children = Array.from({ length: 6 }, () => spawn(process.execPath, ['--input-type=module', '-e', holder], { stdio: ['ignore', 'ignore', 'inherit'] }));
  const codes = await Promise.all(children.map((child) => new Promise<number | null>((resolve) => child.on('exit', resolve))));
  assert.deepEqual(codes, [0, 0, 0, 0, 0, 0]);
  const lines = (await readFile(log, 'utf8')).trim().split('\n');
  assert.equal(lines.length, 12);
  for (let i = 0; i < lines.length; i += 2) {
    const [enter, exit] = [lines[i]!.split(' '), lines[i + 1]!.split(' ')];
    assert.deepEqual([enter[0], exit[0], exit[1]], ['enter', 'exit', enter[1]], `overlapping holders:\n${lines.join('\n')}`);
  }
});
