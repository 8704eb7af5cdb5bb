/**
 * Mounts with an anonymous device number (major 0) whose source is a path: only btrfs names its
 * device there. The source of any other (tmpfs, FUSE, overlay) is not resolved: it names no
 * device and may lie on a filesystem that never answers.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { execFile } from 'node:child_process';
import { mkdir, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { isFsResizeError } from '../../../src/fsresize/index.js';
import { majorMinorOf } from '../../../src/fsresize/devices/major-minor-of.js';
import { holdDeviceElsewhere } from '../../support/fsresize/hold-device-elsewhere.js';
import { mountHungFuse } from '../../support/fsresize/hung-fuse-mount.js';
import { usedExt4 } from '../../support/fsresize/fixtures.js';

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

it('tmpfs mounts whose source names a path on a hung FUSE mount hold up neither the inspection of a mounted ext4 nor the thread pool', async () => {
  const { scratch, resizer, loop, mnt } = await usedExt4();
  await loop.mount(mnt); // mounted: measured from its superblock, no look for other users
  const fuse = await scratch.directory('fuse');
  const hung = await mountHungFuse(fuse);
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
  assert.strictEqual(
    inspected,
    mnt,
    'the ext4 is matched by its device number; no tmpfs source was resolved',
  );
  assert.notStrictEqual(pool, 'timed out', 'the thread pool is not held');
}).timeout(120_000);

it('a btrfs mounted through a device node that now names an ext4 in use elsewhere: the ext4 is not taken for mounted, and is refused FSRESIZE_DEVICE_IN_USE (never grown offline under its user)', async () => {
  const { scratch, resizer, calls, loop } = await usedExt4();
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
  const holder = await holdDeviceElsewhere(loop.device, await scratch.directory('holder'));
  const inspection = await resizer.inspect(node);
  assert.strictEqual(inspection.filesystem, 'ext4');
  assert.isNull(inspection.mountPoint, 'the btrfs mounted from that name is not this ext4');
  await expectRejection(resizer.grow(node), (error: unknown) => {
    assert.ok(isFsResizeError(error), String(error));
    assert.strictEqual(error.code, 'FSRESIZE_DEVICE_IN_USE', error.message);
    assert.match(
      error.message,
      new RegExp(`but pid ${holder.pid} \\(sleep\\) has the device open`),
    );
    return true;
  });
  assert.deepStrictEqual(
    calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'),
    [],
    'neither e2fsck nor resize2fs ran',
  );
});
