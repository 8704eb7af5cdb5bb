import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection, expectThrow } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { eventually } from '../../support/eventually.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readlinkSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireLockFile, processRuns, readProcessStat } from '../../../src/lock/index.js';
import { processStartTime } from '../../../src/lock/process-start-time.js';

const LOCK_MODULE = fileURLToPath(new URL('../../../src/lock/index.js', import.meta.url));

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  return new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)));
}

const errors = {
  busy: (pid: string) => new Error(`busy: held by ${pid}`),
  cannotCreate: (code: string) => new Error(`cannot create: ${code}`),
};

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-lock-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

it('one holder at a time; the next one gets it after release', async () => {
  const lock = join(await scratch(), 'x.lock');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 5000, ...errors });
  assert.match(await readFile(lock, 'utf8'), new RegExp(`^${process.pid} `));
  let second = false;
  const waiting = acquireLockFile(lock, {
    deadline: Date.now() + 5000,
    pollMs: 10,
    ...errors,
  }).then((r) => {
    second = true;
    return r;
  });
  await new Promise((r) => setTimeout(r, 100));
  assert.isFalse(second, 'the second waits while the first holds the lock');
  await release();
  const releaseSecond = await waiting;
  assert.isTrue(second);
  await releaseSecond();
});

it('a lock held by a live process past the deadline gives the busy error, naming the holder', async () => {
  const lock = join(await scratch(), 'x.lock');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 5000, ...errors });
  let waitedFor: string | undefined;
  await expectRejection(
    acquireLockFile(lock, {
      deadline: Date.now() + 100,
      pollMs: 10,
      ...errors,
      onWait: (pid) => {
        waitedFor = pid;
      },
    }),
    new RegExp(`busy: held by ${process.pid}`),
  );
  assert.strictEqual(waitedFor, String(process.pid));
  await release();
});

it('a lock whose holder died is taken over at once (a lock without a PID namespace, from an older voe, is judged)', async () => {
  const lock = join(await scratch(), 'x.lock');
  await writeFile(lock, `${await deadPid()} some-token\n`);
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  assert.match(await readFile(lock, 'utf8'), new RegExp(`^${process.pid} `));
  await release();
});

it('release leaves a lock that is no longer ours alone', async () => {
  const lock = join(await scratch(), 'x.lock');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  await writeFile(lock, '1 someone-else\n');
  await release();
  assert.strictEqual(await readFile(lock, 'utf8'), '1 someone-else\n');
});

it('a directory that cannot be created gives the cannot-create error', async () => {
  const dir = await scratch();
  await writeFile(join(dir, 'file'), '');
  await expectRejection(
    acquireLockFile(join(dir, 'file', 'x.lock'), { deadline: Date.now() + 100, ...errors }),
    /cannot create: (ENOTDIR|EEXIST)/,
  );
});

it('createDirectory false: a missing directory gives the cannot-create error (ENOENT) and is not created; by default it is', async () => {
  const dir = await scratch();
  const missing = join(dir, 'gone');
  await expectRejection(
    acquireLockFile(join(missing, 'x.lock'), {
      deadline: Date.now() + 100,
      createDirectory: false,
      ...errors,
    }),
    /cannot create: ENOENT/,
  );
  await expectRejection(readdir(missing), { code: 'ENOENT' });
  const release = await acquireLockFile(join(missing, 'x.lock'), {
    deadline: Date.now() + 100,
    ...errors,
  });
  assert.deepStrictEqual(await readdir(missing), ['x.lock']);
  await release();
});

it('the lock file records the pid, a token, the PID namespace and the start time', async () => {
  const lock = join(await scratch(), 'x.lock');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  assert.match(
    await readFile(lock, 'utf8'),
    new RegExp(
      `^${process.pid} [0-9a-f-]{36} ${readlinkSync('/proc/self/ns/pid').replace(/[[\]]/g, '\\$&')} start=${processStartTime(process.pid)}\n$`,
    ),
  );
  await release();
});

it('a dead pid recorded in another PID namespace is not judged: the lock is waited for, never taken over', async () => {
  const lock = join(await scratch(), 'x.lock');
  const stale = `${await deadPid()} other-token pid:[1]\n`;
  await writeFile(lock, stale);
  await expectRejection(
    acquireLockFile(lock, { deadline: Date.now() + 150, pollMs: 10, ...errors }),
    /busy: held by \d+/,
  );
  assert.strictEqual(await readFile(lock, 'utf8'), stale);
});

it('a dead holder in our PID namespace is taken over', async () => {
  const lock = join(await scratch(), 'x.lock');
  await writeFile(lock, `${await deadPid()} some-token ${readlinkSync('/proc/self/ns/pid')}\n`);
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  assert.match(await readFile(lock, 'utf8'), new RegExp(`^${process.pid} `));
  await release();
});

it('a takeover marker left by a process that died mid-takeover is cleared after 10 s', async () => {
  const lock = join(await scratch(), 'x.lock');
  await writeFile(lock, `${await deadPid()} some-token\n`);
  await writeFile(`${lock}.takeover`, `${await deadPid()} marker\n`);
  const old = new Date(Date.now() - 11_000);
  await utimes(`${lock}.takeover`, old, old);
  const release = await acquireLockFile(lock, {
    deadline: Date.now() + 1000,
    pollMs: 10,
    ...errors,
  });
  assert.match(await readFile(lock, 'utf8'), new RegExp(`^${process.pid} `));
  await release();
});

it('processes racing for one stale lock hold it one at a time', async () => {
  const dir = await scratch();
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
  const children = Array.from({ length: 6 }, () =>
    spawn(process.execPath, ['--input-type=module', '-e', holder], {
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  onCleanup(() => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const codes = await Promise.all(
    children.map((child) => new Promise<number | null>((resolve) => child.on('exit', resolve))),
  );
  assert.deepStrictEqual(codes, [0, 0, 0, 0, 0, 0]);
  const lines = (await readFile(log, 'utf8')).trim().split('\n');
  assert.strictEqual(lines.length, 12);
  for (let i = 0; i < lines.length; i += 2) {
    const [enter, exit] = [lines[i]!.split(' '), lines[i + 1]!.split(' ')];
    assert.deepStrictEqual(
      [enter[0], exit[0], exit[1]],
      ['enter', 'exit', enter[1]],
      `overlapping holders:\n${lines.join('\n')}`,
    );
  }
});

/**
 * A process that takes the lock, starts `sleep` as its helper and records it, then waits to be
 * killed. Both are killed after the test, also when it fails half-way.
 */
async function holderWithHelper(
  lock: string,
): Promise<{ holder: ChildProcess; helperPid: number }> {
  const script = `
    const { acquireLockFile } = await import(${JSON.stringify(LOCK_MODULE)});
    const { spawn } = await import('node:child_process');
    const errors = { busy: (p) => new Error('busy ' + p), cannotCreate: (c) => new Error('cannot ' + c) };
    const release = await acquireLockFile(${JSON.stringify(lock)}, { deadline: Date.now() + 5000, ...errors });
    const helper = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    release.recordHelper(helper.pid);
    helper.unref();
    process.stdout.write(helper.pid + '\\n');
    setInterval(() => {}, 1000);`;
  const holder = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onCleanup(() => {
    if (holder.exitCode === null && holder.signalCode === null) holder.kill('SIGKILL');
  });
  let out = '';
  holder.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await eventually(() => out.includes('\n'), 30_000, "the holder's helper pid", {
    intervalMs: 20,
    giveUp: () => (holder.exitCode === null ? undefined : 'the holder exited early'),
  });
  const helperPid = Number(out.trim());
  // Only that process: once it has ended, its pid may belong to another.
  const helperStart = processStartTime(helperPid);
  onCleanup(() => {
    if (helperStart !== null && processStartTime(helperPid) === helperStart)
      process.kill(helperPid, 'SIGKILL');
  });
  return { holder, helperPid };
}

it('a holder killed with SIGKILL while its recorded helper (a tool) runs: the lock stays held until the helper ends', async () => {
  const lock = join(await scratch(), 'x.lock');
  const { holder, helperPid } = await holderWithHelper(lock);
  assert.match(
    await readFile(lock, 'utf8'),
    new RegExp(`^${holder.pid} \\S+ .*helper=${helperPid}:${processStartTime(helperPid)}\n$`),
  );
  const died = once(holder, 'exit');
  holder.kill('SIGKILL');
  await died;
  await expectRejection(
    acquireLockFile(lock, { deadline: Date.now() + 300, pollMs: 10, ...errors }),
    new RegExp(`busy: held by ${holder.pid}`),
    'the holder is gone, but its tool still runs',
  );
  const helperGone = new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (processStartTime(helperPid) === null) {
        clearInterval(poll);
        resolve();
      }
    }, 10);
  });
  process.kill(helperPid, 'SIGTERM');
  await helperGone;
  const release = await acquireLockFile(lock, {
    deadline: Date.now() + 1000,
    pollMs: 10,
    ...errors,
  });
  assert.match(await readFile(lock, 'utf8'), new RegExp(`^${process.pid} `));
  await release();
});

it('recorded pids reused by other processes (another start time) do not hold the lock', async () => {
  const lock = join(await scratch(), 'x.lock');
  const namespace = readlinkSync('/proc/self/ns/pid');
  // The holder's pid now belongs to a process that started at another time (here: our parent).
  await writeFile(lock, `${process.ppid} tok ${namespace} start=1\n`);
  const first = await acquireLockFile(lock, { deadline: Date.now() + 200, pollMs: 10, ...errors });
  await first();
  // A dead holder whose helper's pid was reused (here: by this process).
  await writeFile(lock, `${await deadPid()} tok ${namespace} start=1 helper=${process.pid}:1\n`);
  const second = await acquireLockFile(lock, { deadline: Date.now() + 200, pollMs: 10, ...errors });
  await second();
  // The same, with the helper's real start time: held.
  await writeFile(
    lock,
    `${await deadPid()} tok ${namespace} start=1 helper=${process.ppid}:${processStartTime(process.ppid)}\n`,
  );
  await expectRejection(
    acquireLockFile(lock, { deadline: Date.now() + 150, pollMs: 10, ...errors }),
    /busy/,
  );
});

it('a holder or helper that has ended but is not reaped (a zombie) does not hold the lock', async () => {
  const lock = join(await scratch(), 'x.lock');
  const namespace = readlinkSync('/proc/self/ns/pid');
  // The child ends at once and its parent never waits for it: a zombie until the parent ends. (A
  // shell's `true &` before `exec sleep` was reaped by the shell itself now and then on a loaded machine.)
  const parent = spawn(
    'python3',
    [
      '-c',
      'import os, time\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nprint(pid, flush=True)\ntime.sleep(30)',
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  onCleanup(() => {
    parent.kill('SIGKILL');
  });
  const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
  const zombie = Number(line.toString().trim());
  await eventually(() => readProcessStat(zombie)?.state === 'Z', 5_000, `pid ${zombie} a zombie`, {
    intervalMs: 10,
  });
  const start = processStartTime(zombie);
  assert.notStrictEqual(start, null, 'a zombie keeps its pid and start time');
  await writeFile(lock, `${zombie} tok ${namespace} start=${start}\n`);
  await (
    await acquireLockFile(lock, { deadline: Date.now() + 200, pollMs: 10, ...errors })
  )();
  await writeFile(lock, `${await deadPid()} tok ${namespace} start=1 helper=${zombie}:${start}\n`);
  await (
    await acquireLockFile(lock, { deadline: Date.now() + 200, pollMs: 10, ...errors })
  )();
  // The parent that has not ended still holds it.
  await writeFile(lock, `${parent.pid} tok ${namespace} start=${processStartTime(parent.pid!)}\n`);
  await expectRejection(
    acquireLockFile(lock, { deadline: Date.now() + 150, pollMs: 10, ...errors }),
    /busy/,
  );
});

/** A lock taken, and a symbolic link to a victim file planted where it stages a helper's record. */
async function lockWithLinkAtStagedName() {
  const dir = await scratch();
  const lock = join(dir, 'x.lock');
  const victim = join(dir, 'victim');
  await writeFile(victim, 'untouched\n');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  const before = await readFile(lock, 'utf8');
  const staged = `${lock}.${before.split(' ')[1]}.helper`;
  await symlink(victim, staged);
  return { dir, lock, victim, release, before, staged };
}

it('recordHelper never writes through a file or symbolic link planted where it stages the new content', async () => {
  const { lock, victim, release, before } = await lockWithLinkAtStagedName();
  release.recordHelper(process.ppid);
  assert.strictEqual(await readFile(victim, 'utf8'), 'untouched\n');
  assert.strictEqual(
    await readFile(lock, 'utf8'),
    before,
    'the helper is not recorded; the lock stays ours',
  );
  await release();
  await expectRejection(readFile(lock, 'utf8'), { code: 'ENOENT' });
});

it('recordHelper leaves a lock file that is no longer ours alone, and release still works after it', async () => {
  const lock = join(await scratch(), 'x.lock');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  const tool = spawn('sleep', ['0.2']);
  const ended = once(tool, 'exit');
  release.recordHelper(tool.pid!);
  assert.match(await readFile(lock, 'utf8'), new RegExp(` helper=${tool.pid}:\\d+\n$`));
  await ended;
  await release();
  await expectRejection(
    readFile(lock, 'utf8'),
    { code: 'ENOENT' },
    'released after the rewrite, its tool having ended',
  );
  const again = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  await writeFile(lock, '1 someone-else\n');
  again.recordHelper(process.ppid);
  assert.strictEqual(await readFile(lock, 'utf8'), '1 someone-else\n');
});

it('a release while the recorded helper (a tool voe stopped waiting for) still runs hands the lock to it: held until the tool ends, then the next waiter gets it', async () => {
  const lock = join(await scratch(), 'x.lock');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 100, ...errors });
  const tool = spawn('sleep', ['1.5']);
  onCleanup(() => {
    if (tool.exitCode === null && tool.signalCode === null) tool.kill('SIGKILL');
  });
  const ended = once(tool, 'exit');
  release.recordHelper(tool.pid!);
  const token = (await readFile(lock, 'utf8')).split(' ')[1];
  await release();
  assert.match(
    await readFile(lock, 'utf8'),
    new RegExp(`^${tool.pid} ${token} \\S+ start=${processStartTime(tool.pid!)}\n$`),
    'the tool is the holder now',
  );
  await expectRejection(
    acquireLockFile(lock, { deadline: Date.now() + 300, pollMs: 10, ...errors }),
    new RegExp(`busy: held by ${tool.pid}`),
    'held while the tool runs, although this process released it',
  );
  const next = acquireLockFile(lock, { deadline: Date.now() + 10_000, pollMs: 10, ...errors });
  await ended;
  const releaseNext = await next;
  assert.match(
    await readFile(lock, 'utf8'),
    new RegExp(`^${process.pid} `),
    'taken over once the tool ended',
  );
  await releaseNext();
});

it('the files a waiter killed with SIGKILL left next to the lock are removed by the next holder; those of live waiters, and of other PID namespaces, stay', async () => {
  const dir = await scratch();
  const lock = join(dir, 'x.lock');
  const namespace = readlinkSync('/proc/self/ns/pid');
  const dead = await deadPid();
  const leftovers = [
    '0b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6d',
    '0b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6e.helper',
    '0b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6f.takeover',
  ];
  for (const name of leftovers)
    await writeFile(`${lock}.${name}`, `${dead} some-token ${namespace}\n`);
  const live = `${lock}.1b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6d`;
  await writeFile(
    live,
    `${process.pid} other-token ${namespace} start=${processStartTime(process.pid)}\n`,
  );
  const elsewhere = `${lock}.2b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6d`;
  await writeFile(elsewhere, `${dead} other-token pid:[1]\n`);
  const unrelated = [join(dir, 'y.lock.0b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6d'), `${lock}.notes`];
  for (const path of unrelated) await writeFile(path, `${dead} some-token ${namespace}\n`);
  const release = await acquireLockFile(lock, { deadline: Date.now() + 1000, ...errors });
  await release();
  assert.deepStrictEqual((await readdir(dir)).sort(), [
    'x.lock.1b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6d',
    'x.lock.2b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6d',
    'x.lock.notes',
    'y.lock.0b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6d',
  ]);
});

it("a holder's helper record left empty or partly written (its holder killed while staging it) is removed by the next holder; a waiter's file in that state is not (it may be being written)", async () => {
  const dir = await scratch();
  const lock = join(dir, 'x.lock');
  const empty = `${lock}.3b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6d.helper`;
  const partial = `${lock}.3b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6e.helper`;
  await writeFile(empty, '');
  await writeFile(partial, `${process.pid} tok`.slice(0, 3) + 'x');
  const waiting = `${lock}.3b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6f`;
  await writeFile(waiting, '');
  const release = await acquireLockFile(lock, { deadline: Date.now() + 1000, ...errors });
  await release();
  assert.deepStrictEqual((await readdir(dir)).sort(), [
    'x.lock.3b3c1e2a-7d4f-4a6b-9c8d-1e2f3a4b5c6f',
  ]);
});

it("prepareHelper stages the helper's record before the helper starts: it throws cannotCreate when it cannot (nothing planted at its name is written through), recordHelper then uses what it staged, and release leaves no staged file", async () => {
  const { dir, lock, victim, release, before, staged } = await lockWithLinkAtStagedName();
  expectThrow(() => release.prepareHelper(), /cannot create: EEXIST/);
  assert.strictEqual(await readFile(victim, 'utf8'), 'untouched\n');
  assert.strictEqual(await readFile(lock, 'utf8'), before, 'the lock stays ours, naming no helper');
  await rm(staged);

  release.prepareHelper();
  assert.deepStrictEqual(
    (await readdir(dir)).sort(),
    ['victim', 'x.lock', `x.lock.${before.split(' ')[1]}.helper`],
    'staged next to the lock',
  );
  const tool = spawn('sleep', ['0.2']);
  const ended = once(tool, 'exit');
  release.recordHelper(tool.pid!);
  assert.strictEqual(
    await readFile(lock, 'utf8'),
    `${before.trimEnd()} helper=${tool.pid}:${processStartTime(tool.pid!)}\n`,
  );
  await ended;
  await release();
  assert.deepStrictEqual(await readdir(dir), ['victim'], 'released, nothing staged left behind');
});

it('processRuns: this process runs; a child that ended runs no more, as a zombie not reaped yet and once reaped', async () => {
  assert.isTrue(processRuns(process.pid));
  // A shell whose child still runs when the shell becomes `sleep 30`, which never waits for it: once
  // that child ends it stays a zombie (the shell cannot have reaped it before its exec).
  const shell = spawn('sh', ['-c', 'sleep 0.5 & echo $!; exec sleep 30'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  onCleanup(() => {
    shell.kill('SIGKILL');
  });
  const [line] = (await once(shell.stdout!, 'data')) as [Buffer];
  const zombie = Number(line.toString().trim());
  await eventually(() => readProcessStat(zombie)?.state === 'Z', 10_000, 'the child a zombie', {
    intervalMs: 20,
  });
  assert.isFalse(processRuns(zombie));
  assert.isTrue(processRuns(shell.pid!));
  shell.kill('SIGKILL');
  await once(shell, 'exit');
  assert.isFalse(processRuns(shell.pid!));
});
