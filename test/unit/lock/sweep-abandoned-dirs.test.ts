import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { acquireLockFile, sweepAbandonedDirs } from '../../../src/lock/index.js';

const LOCK = 'owner.lock';
const errors = { busy: () => new Error('busy'), cannotCreate: (code: string) => new Error(code) };

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  return new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)));
}

/** PARENT/<name> holding LOCK with `lock` as its content (a dead or live holder), or no lock when null. */
async function dirWith(parent: string, name: string, lock: string | null): Promise<string> {
  const dir = join(parent, name);
  await mkdir(dir);
  await writeFile(join(dir, 'data'), 'left behind');
  if (lock !== null) await writeFile(join(dir, LOCK), lock);
  return dir;
}

it('sweepAbandonedDirs removes only the directories of its prefix whose lock names a process that is gone, after beforeRemove', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'voe-sweep-'));
  onCleanup(() => rm(parent, { recursive: true, force: true }));
  const dead = `${await deadPid()} token\n`;
  const abandoned = await dirWith(parent, 'voe-x-Ab12Cd', dead);
  const alsoAbandoned = await dirWith(parent, 'voe-x-zz99ZZ', dead);
  const live = await dirWith(parent, 'voe-x-LIVE01', null);
  const release = await acquireLockFile(join(live, LOCK), { deadline: Date.now(), ...errors });
  onCleanup(release);
  const unlocked = await dirWith(parent, 'voe-x-nolock', null);
  const otherName = await dirWith(parent, 'voe-y-Ab12Cd', dead);
  const notMkdtemp = await dirWith(parent, 'voe-x-toolong1', dead);
  const regexLookalike = await dirWith(parent, 'voeAx-Ab12Cd', dead);
  const ours = await dirWith(parent, 'voe-x-OURS00', dead);
  const lockIsDirectory = await dirWith(parent, 'voe-x-LDIR00', null);
  await mkdir(join(lockIsDirectory, LOCK));
  const before: string[] = [];

  const removed = await sweepAbandonedDirs(parent, {
    prefix: 'voe-x-',
    lockName: LOCK,
    except: ours,
    beforeRemove: async (dir) => {
      before.push(dir);
      assert.ok(
        existsSync(join(dir, 'data')),
        'beforeRemove runs while the directory is still there',
      );
    },
  });

  assert.deepStrictEqual(removed.sort(), [abandoned, alsoAbandoned].sort());
  assert.deepStrictEqual(before.sort(), [abandoned, alsoAbandoned].sort());
  for (const dir of removed) assert.isFalse(existsSync(dir), `${dir} was removed`);
  for (const dir of [
    live,
    unlocked,
    otherName,
    notMkdtemp,
    regexLookalike,
    ours,
    lockIsDirectory,
  ]) {
    assert.ok(existsSync(join(dir, 'data')), `${dir} was left alone`);
  }
});

it('sweepAbandonedDirs of two callers at once: each abandoned directory is removed by exactly one', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'voe-sweep-'));
  onCleanup(() => rm(parent, { recursive: true, force: true }));
  const dead = `${await deadPid()} token\n`;
  const dirs = await Promise.all(
    ['aaaaa1', 'aaaaa2', 'aaaaa3', 'aaaaa4'].map((suffix) =>
      dirWith(parent, `voe-x-${suffix}`, dead),
    ),
  );
  const [first, second] = await Promise.all(
    [1, 2].map(() => sweepAbandonedDirs(parent, { prefix: 'voe-x-', lockName: LOCK })),
  );
  assert.deepStrictEqual([...first!, ...second!].sort(), dirs.sort());
});

it('sweepAbandonedDirs of a parent it cannot read resolves with nothing removed', async () => {
  assert.deepStrictEqual(
    await sweepAbandonedDirs('/nonexistent/voe-sweep', { prefix: 'voe-x-', lockName: LOCK }),
    [],
  );
});

it('sweepAbandonedDirs removes a directory an earlier sweep moved aside but did not remove, once that sweeper is gone or is this process; not one a live sweeper is removing', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'voe-sweep-'));
  onCleanup(() => rm(parent, { recursive: true, force: true }));
  const deadSweeper = await deadPid();
  const liveSweeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  onCleanup(() => {
    liveSweeper.kill();
  });
  await new Promise((resolve) => liveSweeper.once('spawn', resolve));
  await dirWith(parent, `.voe-x-Dead01.removing-${deadSweeper}`, null);
  await dirWith(parent, `.voe-x-Ours01.removing-${process.pid}`, null);
  const live = await dirWith(parent, `.voe-x-Live01.removing-${liveSweeper.pid!}`, null);
  const otherPrefix = await dirWith(parent, `.voe-y-Dead02.removing-${deadSweeper}`, null);
  const notANumber = await dirWith(parent, `.voe-x-Dead03.removing-x${deadSweeper}`, null);

  const removed = await sweepAbandonedDirs(parent, { prefix: 'voe-x-', lockName: LOCK });

  assert.deepStrictEqual(
    removed.sort(),
    [join(parent, 'voe-x-Dead01'), join(parent, 'voe-x-Ours01')].sort(),
    'reported by the names they had',
  );
  assert.deepStrictEqual(
    (await readdir(parent)).sort(),
    [live, otherPrefix, notANumber].map((dir) => basename(dir)).sort(),
  );
});

it('sweepAbandonedDirs of two callers at once: each directory a gone sweeper left moved aside is removed by exactly one', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'voe-sweep-'));
  onCleanup(() => rm(parent, { recursive: true, force: true }));
  const deadSweeper = await deadPid();
  for (const suffix of ['bbbbb1', 'bbbbb2', 'bbbbb3'])
    await dirWith(parent, `.voe-x-${suffix}.removing-${deadSweeper}`, null);
  await dirWith(parent, `.voe-x-bbbbb4.removing-${process.pid}`, null);
  const [first, second] = await Promise.all(
    [1, 2].map(() => sweepAbandonedDirs(parent, { prefix: 'voe-x-', lockName: LOCK })),
  );
  assert.deepStrictEqual(
    [...first!, ...second!].sort(),
    ['bbbbb1', 'bbbbb2', 'bbbbb3', 'bbbbb4'].map((suffix) => join(parent, `voe-x-${suffix}`)),
  );
  assert.deepStrictEqual(await readdir(parent), []);
});
