/**
 * Mounts with an anonymous device number (major 0) whose source is a path: only btrfs names its
 * device there. The source of any other (tmpfs, FUSE, overlay) is not resolved: it names no
 * device and may lie on a filesystem that never answers.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, stat } from 'node:fs/promises';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { isFsResizeError, majorMinorOf } from '../../../src/fsresize/index.js';
import { holdDeviceElsewhere } from '../../support/hold-device-elsewhere.js';
import { mountHungFuse } from '../../support/hung-fuse-mount.js';
import { usedExt4 } from './fixtures.js';

const execFileAsync = promisify(execFile);

/** `promise`'s value, or 'timed out' after `ms`. */
function within<T>(ms: number, promise: Promise<T>): Promise<T | 'timed out'> {
  return Promise.race([
    promise,
    new Promise<'timed out'>((resolve) => {
      setTimeout(() => resolve('timed out'), ms).unref();
    }),
  ]);
}

test(
  'tmpfs mounts whose source names a path on a hung FUSE mount hold up neither the inspection of a mounted ext4 nor the thread pool',
  { timeout: 120_000 },
  async (t) => {
    const { scratch, resizer, loop, mnt } = await usedExt4(t);
    await loop.mount(mnt); // mounted: measured from its superblock, no look for other users
    const fuse = await scratch.directory('fuse');
    const hung = await mountHungFuse(t, fuse);
    // Four: as many as libuv's thread pool has threads.
    for (let i = 0; i < 4; i += 1) {
      const target = `${mnt}-tmpfs${i}`;
      await mkdir(target, { recursive: true });
      hung.alsoUnmount(target);
      await execFileAsync('mount', ['-t', 'tmpfs', `${fuse}/image${i}`, target]);
    }
    const inspected = await within(
      10_000,
      resizer.inspect(loop.device).then((inspection) => inspection.mountPoint),
    );
    const pool = await within(5_000, stat('/'));
    await hung.stop(); // before any assertion: the fixture's cleanup needs the thread pool
    assert.equal(
      inspected,
      mnt,
      'the ext4 is matched by its device number; no tmpfs source was resolved',
    );
    assert.notEqual(pool, 'timed out', 'the thread pool is not held');
  },
);

test('a btrfs mounted through a device node that now names an ext4 in use elsewhere: the ext4 is not taken for mounted, and is refused FSRESIZE_DEVICE_IN_USE (never grown offline under its user)', async (t) => {
  const { scratch, resizer, calls, loop } = await usedExt4(t);
  const other = await scratch.attach(256 * 1024 * 1024);
  await execFileAsync('mkfs.btrfs', ['-q', other.device]);
  const node = `${await scratch.directory('nodes')}/disk`;
  const numbers = async (device: string): Promise<string[]> =>
    majorMinorOf((await stat(device)).rdev).split(':');
  await execFileAsync('mknod', [node, 'b', ...(await numbers(other.device))]);
  const mnt = await scratch.directory('btrfs');
  await scratch.mountFrom(node, mnt);
  // The name now means the ext4, which another program has open.
  await execFileAsync('rm', [node]);
  await execFileAsync('mknod', [node, 'b', ...(await numbers(loop.device))]);
  const holder = await holdDeviceElsewhere(t, loop.device, await scratch.directory('holder'));
  const inspection = await resizer.inspect(node);
  assert.equal(inspection.filesystem, 'ext4');
  assert.equal(inspection.mountPoint, null, 'the btrfs mounted from that name is not this ext4');
  await assert.rejects(resizer.grow(node), (error: unknown) => {
    assert.ok(isFsResizeError(error), String(error));
    assert.equal(error.code, 'FSRESIZE_DEVICE_IN_USE', error.message);
    assert.match(
      error.message,
      new RegExp(`but pid ${holder.pid} \\(sleep\\) has the device open`),
    );
    return true;
  });
  assert.deepEqual(
    calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'),
    [],
    'neither e2fsck nor resize2fs ran',
  );
});
