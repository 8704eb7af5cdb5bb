import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../../support/cleanup.js';
import { expectRejection } from '../../../support/expect-error.js';
import { chmod, chown, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeviceLock, isFsResizeError } from '../../../../src/fsresize/index.js';

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-lock-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function exclusiveRuns(
  lock: ReturnType<typeof createDeviceLock>,
  key: string,
  count: number,
): Promise<{ maxInside: number; order: number[] }> {
  let inside = 0;
  let maxInside = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const release = await lock.acquire(key);
      inside += 1;
      maxInside = Math.max(maxInside, inside);
      order.push(i);
      await new Promise((r) => setImmediate(r));
      inside -= 1;
      await release();
    }),
  );
  return { maxInside, order };
}

it('in-process callers of one key run one at a time, first come first served', async () => {
  const { maxInside, order } = await exclusiveRuns(createDeviceLock(), '7:0', 5);
  assert.strictEqual(maxInside, 1);
  assert.deepStrictEqual(order, [0, 1, 2, 3, 4]);
});

it('different keys do not wait for each other', async () => {
  const lock = createDeviceLock();
  const a = await lock.acquire('7:0');
  const b = await lock.acquire('7:1');
  await a();
  await b();
});

it('two locks sharing a directory exclude each other and leave no files behind', async () => {
  const dir = await tempDir();
  const first = createDeviceLock({ directory: dir, pollMs: 5 });
  const second = createDeviceLock({ directory: dir, pollMs: 5 });
  const release = await first.acquire('7:0');
  let acquired = false;
  const waiting = second.acquire('7:0').then((r) => {
    acquired = true;
    return r;
  });
  await new Promise((r) => setTimeout(r, 30));
  assert.isFalse(acquired, 'the second holder waits');
  await release();
  await (
    await waiting
  )();
  assert.deepStrictEqual(await readdir(dir), []);
});

it('a lock file of a process that no longer exists is stale and taken over', async () => {
  const dir = await tempDir();
  await writeFile(join(dir, '7-0.lock'), '2147483646 dead-token\n');
  const release = await createDeviceLock({ directory: dir, pollMs: 5 }).acquire('7:0');
  await release();
  assert.deepStrictEqual(await readdir(dir), []);
});

it('a lock held by a live process past the timeout is FSRESIZE_BUSY naming the lock file', async () => {
  const dir = await tempDir();
  await writeFile(join(dir, '7-0.lock'), `${process.ppid} other-token\n`);
  await expectRejection(
    createDeviceLock({ directory: dir, pollMs: 5 }).acquire('7:0', { timeoutMs: 50 }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_BUSY');
      assert.match(error.message, /7-0\.lock/);
      return true;
    },
  );
});

it('an in-process waiter that times out is FSRESIZE_BUSY and does not block later callers', async () => {
  const lock = createDeviceLock();
  const release = await lock.acquire('7:0');
  await expectRejection(
    lock.acquire('7:0', { timeoutMs: 20 }),
    (error: unknown) => isFsResizeError(error) && error.code === 'FSRESIZE_BUSY',
  );
  await release();
  const again = await lock.acquire('7:0', { timeoutMs: 1000 });
  await again();
});

it('a lock directory that cannot be created is a typed error', async () => {
  const dir = await tempDir();
  const file = join(dir, 'a-file');
  await writeFile(file, '');
  await expectRejection(
    createDeviceLock({ directory: join(file, 'locks') }).acquire('7:0'),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_LOCK_FAILED');
      assert.match(
        error.message,
        /cannot create the device lock file in .*a-file\/locks \(ENOTDIR\); a path component is a file, not a directory: choose another lock directory$/,
      );
      return true;
    },
  );
});

it('the lock directory is made private whatever the umask; one others may write in is refused FSRESIZE_LOCK_FAILED, and nothing is written there', async () => {
  const dir = await tempDir();
  const fresh = join(dir, 'run', 'voe', 'fsresize');
  const umask = process.umask(0);
  try {
    const release = await createDeviceLock({ directory: fresh }).acquire('7:0');
    await release();
  } finally {
    process.umask(umask);
  }
  assert.strictEqual((await stat(fresh)).mode & 0o777, 0o700);
  assert.strictEqual((await stat(join(dir, 'run', 'voe'))).mode & 0o777, 0o700);

  for (const [mode, who] of [
    [0o777, 'its group and other users'],
    [0o1777, 'its group and other users'],
    [0o775, 'its group'],
    [0o702, 'other users'],
  ] as const) {
    const shared = await mkdtemp(join(dir, 'shared-'));
    await chmod(shared, mode);
    await expectRejection(
      createDeviceLock({ directory: shared }).acquire('7:0'),
      (error: unknown) => {
        assert.ok(isFsResizeError(error));
        assert.strictEqual(error.code, 'FSRESIZE_LOCK_FAILED');
        assert.match(
          error.message,
          new RegExp(
            `^the device lock directory ${shared} is writable by ${who} \\(mode ${mode.toString(8).padStart(4, '0')}\\): another user could remove or plant its lock files; make it writable by its owner only \\(chmod 700\\)`,
          ),
        );
        return true;
      },
    );
    assert.deepStrictEqual(await readdir(shared), []);
  }
  if (process.getuid?.() === 0) {
    const someoneElses = await mkdtemp(join(dir, 'nobody-'));
    await chown(someoneElses, 65534, 65534);
    await expectRejection(
      createDeviceLock({ directory: someoneElses }).acquire('7:0'),
      (error: unknown) =>
        isFsResizeError(error) &&
        error.code === 'FSRESIZE_PERMISSION_DENIED' &&
        /is owned by uid 65534, not 0: run voe as that user \(root on a node, as kubelet runs it\) or pass a --lock-dir of your own/.test(
          error.message,
        ),
    );
  }
  const link = join(dir, 'link');
  await symlink(fresh, link);
  await expectRejection(
    createDeviceLock({ directory: link }).acquire('7:0'),
    /the device lock directory .*link is a symbolic link: another user could remove or plant its lock files; replace the link with a directory of its own \(mode 700\), or choose another lock directory/,
  );
});

it('a waiter asked to stop gives up at once with FSRESIZE_INTERRUPTED (file lock and in-process queue) and blocks nobody', async () => {
  const dir = await tempDir();
  await writeFile(join(dir, '7-0.lock'), `${process.ppid} other-token\n`);
  const controller = new AbortController();
  // Polls ten minutes apart: ending at all (within the test's timeout) shows the stop did not wait for the next poll.
  const waiting = createDeviceLock({ directory: dir, pollMs: 600_000 }).acquire('7:0', {
    signal: controller.signal,
  });
  setTimeout(() => controller.abort('SIGINT'), 50);
  await expectRejection(waiting, (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_INTERRUPTED');
    assert.match(
      error.message,
      /^stopped \(SIGINT\) while waiting for another resize of this device to finish; nothing was changed$/,
    );
    return true;
  });

  const lock = createDeviceLock();
  const release = await lock.acquire('7:1');
  const stopping = new AbortController();
  const queued = lock.acquire('7:1', { signal: stopping.signal });
  stopping.abort('SIGTERM');
  await expectRejection(
    queued,
    (error: unknown) => isFsResizeError(error) && error.code === 'FSRESIZE_INTERRUPTED',
  );
  await release();
  await (
    await lock.acquire('7:1', { timeoutMs: 1000 })
  )();
}).timeout(120_000);
