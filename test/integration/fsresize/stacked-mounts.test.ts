/**
 * Two filesystems stacked on one mount point: the lower one (A) is still in mountinfo, but its
 * mount point shows the upper one (B). xfs_io, xfs_growfs and btrfs act on what a path shows, so
 * the core must never use a hidden mount entry: growing A through M would grow B. And xfs_growfs
 * looks M up in the mount table, finding A first: growing B through M would size B from A's device.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { isFsResizeError, type FsResizer } from '../../../src/fsresize/index.js';
import {
  MiB,
  readChecksums,
  sh,
  writeChecksummedFiles,
  type LoopDevice,
} from '../../support/fsresize/loop-device.js';
import { growCalls } from '../../support/fsresize/recording-runner.js';
import { btrfsBytes, mountedXfs, setup, xfsBytes } from '../../support/fsresize/fixtures.js';

async function stacked(mkfs: string[]) {
  const context = await setup();
  const lower = await context.scratch.attach(320 * MiB);
  const upper = await context.scratch.attach(320 * MiB);
  const mnt = await context.scratch.directory('mnt');
  await sh(mkfs[0]!, [...mkfs.slice(1), lower.device]);
  await lower.mount(mnt);
  const lowerSums = await writeChecksummedFiles(mnt, 2);
  await sh(mkfs[0]!, [...mkfs.slice(1), upper.device]);
  await upper.mount(mnt);
  const upperSums = await writeChecksummedFiles(mnt, 2);
  await lower.growBacking(512 * MiB);
  await upper.growBacking(768 * MiB);
  return { ...context, lower, upper, mnt, lowerSums, upperSums };
}

async function refusesHidden(
  resizer: FsResizer,
  lower: LoopDevice,
  mnt: string,
  mountPath?: string,
): Promise<void> {
  await expectRejection(
    resizer.grow(lower.device, mountPath === undefined ? {} : { mountPath }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error), String(error));
      assert.strictEqual(error.code, 'FSRESIZE_MOUNT_HIDDEN', error.message);
      assert.match(
        error.message,
        new RegExp(`is mounted at ${mnt} but hidden by another mount there`),
      );
      assert.match(error.message, /nothing was changed/);
      return true;
    },
  );
}

for (const [name, mkfs, measure] of [
  ['xfs', ['mkfs.xfs', '-q'], xfsBytes],
  ['btrfs', ['mkfs.btrfs', '-q'], btrfsBytes],
] as const) {
  it(`${name} hidden under another ${name} on the same mount point: refused FSRESIZE_MOUNT_HIDDEN, neither filesystem changes`, async () => {
    const { scratch, resizer, calls, lower, upper, mnt, lowerSums, upperSums } = await stacked([
      ...mkfs,
    ]);
    await refusesHidden(resizer, lower, mnt);
    await refusesHidden(resizer, lower, mnt, mnt);
    const inspection = await resizer.inspect(lower.device);
    assert.isNull(inspection.mountPoint);
    assert.deepStrictEqual(inspection.mountPoints, []);
    assert.deepStrictEqual(inspection.hiddenMountPoints, [mnt]);
    assert.strictEqual(growCalls(calls), 0, 'no grow tool ran');
    assert.strictEqual(
      await measure(mnt),
      320 * MiB,
      "the upper filesystem was not grown to the lower device's size",
    );
    assert.deepStrictEqual(await readChecksums(mnt, upperSums.keys()), upperSums);

    if (name === 'xfs') {
      // xfs_growfs would look the mount point up and size the upper one from the lower's device.
      await expectRejection(resizer.grow(upper.device), (error: unknown) => {
        assert.ok(isFsResizeError(error));
        assert.strictEqual(error.code, 'FSRESIZE_MOUNT_HIDDEN');
        assert.match(
          error.message,
          /over another mount, which it hides; xfs_growfs would take the size of the hidden filesystem's device/,
        );
        return true;
      });
      assert.strictEqual(growCalls(calls), 0);
      // Also mounted at a path of its own: that one is used, and the size is the upper device's.
      const own = await scratch.directory('own');
      await upper.mount(own);
      const result = await resizer.grow(upper.device);
      assert.strictEqual(result.action, 'grown', result.reason);
      assert.strictEqual(result.mountPoint, own);
    } else {
      // btrfs resizes through the path's own filesystem: the visible one grows as usual.
      const result = await resizer.grow(upper.device);
      assert.strictEqual(result.action, 'grown', result.reason);
    }
    assert.strictEqual(await measure(mnt), 768 * MiB);
    assert.deepStrictEqual(await readChecksums(mnt, upperSums.keys()), upperSums);

    await upper.unmount(mnt);
    assert.strictEqual(await measure(mnt), 320 * MiB, 'the lower filesystem was not grown either');
    assert.strictEqual(growCalls(calls), 1);
    assert.deepStrictEqual(await readChecksums(mnt, lowerSums.keys()), lowerSums);
    const now = await resizer.grow(lower.device);
    assert.strictEqual(now.action, 'grown', 'once visible, it grows');
    assert.strictEqual(await measure(mnt), 512 * MiB);
  });
}

it('xfs bind-mounted over its own mount point (listed twice there, as propagation does on some nodes) grows; with another device under it, it is still refused', async () => {
  const { scratch, resizer, calls, loop, mnt, sums } = await mountedXfs({
    growTo: 512 * MiB,
    files: 2,
  });
  await scratch.bind(mnt, mnt);
  const listed = (
    await sh('findmnt', ['--list', '--noheadings', '--output', 'SOURCE', '--mountpoint', mnt])
  )
    .trim()
    .split('\n');
  assert.deepStrictEqual(
    listed,
    [loop.device, loop.device],
    'the same filesystem twice at the mount point',
  );
  const inspection = await resizer.inspect(loop.device);
  assert.strictEqual(inspection.mountPoint, mnt);
  assert.isFalse(inspection.mountPointStacked);
  assert.deepStrictEqual(inspection.hiddenMountPoints, []);
  const result = await resizer.grow(loop.device);
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.deepStrictEqual(result.command, ['xfs_growfs', '-d', mnt]);
  assert.strictEqual(await xfsBytes(mnt), 512 * MiB);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);

  // Another device's filesystem under it: xfs_growfs would find that one first at the path.
  const other = await scratch.attach(320 * MiB);
  await sh('mkfs.xfs', ['-q', other.device]);
  const shared = await scratch.directory('shared');
  await other.mount(shared);
  await loop.mount(shared);
  await scratch.bind(shared, shared);
  await loop.growBacking(640 * MiB);
  await expectRejection(resizer.grow(loop.device, { mountPath: shared }), (error: unknown) => {
    assert.ok(isFsResizeError(error), String(error));
    assert.strictEqual(error.code, 'FSRESIZE_MOUNT_HIDDEN');
    assert.match(
      error.message,
      /over another mount, which it hides; xfs_growfs would take the size of the hidden filesystem's device/,
    );
    return true;
  });
  assert.strictEqual(growCalls(calls), 1, 'only the first grow ran');
  assert.strictEqual(await xfsBytes(shared), 512 * MiB);
});
