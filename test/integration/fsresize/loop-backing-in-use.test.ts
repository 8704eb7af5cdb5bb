/**
 * A loop device shows its backing file (or device). Whatever else shows that same file — another
 * loop device over it, mounted or not — or has it open (QEMU with a disk image) reads and writes
 * the same data, and an offline grow through this loop device would write under it. Neither the
 * loop device's own openers nor resize2fs's exclusive open of it can see them.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { execFile } from 'node:child_process';
import { rm, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { isFsResizeError, type FsResizer } from '../../../src/fsresize/index.js';
import { majorMinorOf } from '../../../src/fsresize/devices/major-minor-of.js';
import { refusesExclusiveOpen } from '../../../src/fsresize/devices/refuses-exclusive-open.js';
import { holdDeviceElsewhere } from '../../support/fsresize/hold-device-elsewhere.js';
import { mountHungFuse } from '../../support/fsresize/hung-fuse-mount.js';
import { MiB, readChecksums } from '../../support/fsresize/loop-device.js';
import { dumpe2fsBytes, grownOnceFree, usedExt4 } from '../../support/fsresize/fixtures.js';

async function refusedInUse(resizer: FsResizer, device: string, message: RegExp): Promise<void> {
  for (const dryRun of [true, false]) {
    await expectRejection(resizer.grow(device, { dryRun }), (error: unknown) => {
      assert.ok(isFsResizeError(error), String(error));
      assert.strictEqual(error.code, 'FSRESIZE_DEVICE_IN_USE', error.message);
      assert.match(error.message, message);
      return true;
    });
  }
}

const execFileAsync = promisify(execFile);

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

it('the backing file also attached as another loop device, idle or mounted there: refused FSRESIZE_DEVICE_IN_USE naming it; nothing runs, nothing changes; grown once it is detached', async () => {
  const { scratch, resizer, calls, loop, mnt, sums } = await usedExt4();
  const alias = await scratch.attachFile(loop.backingFile);
  const named = new RegExp(
    `^ext4 on ${escaped(loop.device)} is not mounted here, but its backing file ${escaped(loop.backingFile)} is also attached as ${escaped(alias.device)}, which shows the same data`,
  );
  await refusedInUse(resizer, loop.device, named);
  await alias.mount(mnt);
  await refusedInUse(resizer, loop.device, named);
  const inspection = await resizer.inspect(loop.device);
  assert.isNull(
    inspection.mountPoint,
    'the filesystem is mounted, but through the other loop device',
  );
  assert.deepStrictEqual(inspection.users?.backing, [
    {
      loop: loop.device.replace('/dev/', ''),
      path: loop.backingFile,
      kind: 'file',
      sharedWith: [alias.device.replace('/dev/', '')],
      busy: false,
    },
  ]);
  await alias.unmount(mnt);
  assert.deepStrictEqual(
    calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'),
    [],
    'neither e2fsck nor resize2fs ran',
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);

  await alias.detach();
  await grownOnceFree(resizer, calls, loop, mnt, sums);
});

it('the backing file open in another process (QEMU with a disk image): refused FSRESIZE_DEVICE_IN_USE naming the process and the file; grown once it is gone', async () => {
  const { scratch, resizer, calls, loop, mnt, sums } = await usedExt4();
  const holder = await holdDeviceElsewhere(loop.backingFile, await scratch.directory('holder'));
  await refusedInUse(
    resizer,
    loop.device,
    new RegExp(
      `^ext4 on ${escaped(loop.device)} is not mounted here, but pid ${holder.pid} \\(sleep with the backing file ${escaped(loop.backingFile)}\\) has the device or the backing file or device under it open: growing it offline`,
    ),
  );
  const majorMinor = (await resizer.inspect(loop.device)).majorMinor;
  assert.deepStrictEqual((await resizer.inspect(loop.device)).users?.openedBy, [
    { pid: holder.pid, command: 'sleep', majorMinor, backingFile: loop.backingFile },
  ]);
  assert.deepStrictEqual(
    calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'),
    [],
    'neither e2fsck nor resize2fs ran',
  );

  await holder.stop();
  assert.strictEqual((await resizer.grow(loop.device)).action, 'grown');
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('a loop device over a loop device: grown through the upper one while the lower one is unused; refused while the lower one is mounted (the kernel refuses an exclusive open of it)', async () => {
  const { scratch, resizer, calls, loop, mnt, sums } = await usedExt4();
  const upper = await scratch.attachFile(loop.device);
  await loop.mount(mnt, ['ro']);
  await refusedInUse(
    resizer,
    upper.device,
    new RegExp(
      `^ext4 on ${escaped(upper.device)} is not mounted here, but its backing device ${escaped(loop.device)} is in use by the kernel \\(mounted, perhaps in another mount namespace`,
    ),
  );
  await loop.unmount(mnt);
  assert.deepStrictEqual(
    calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'),
    [],
    'neither e2fsck nor resize2fs ran',
  );
  const inspection = await resizer.inspect(upper.device);
  const name = (device: string): string => device.replace('/dev/', '');
  assert.deepStrictEqual(inspection.users?.backing, [
    {
      loop: name(upper.device),
      path: loop.device,
      kind: 'device',
      majorMinor: (await resizer.inspect(loop.device)).majorMinor,
      sharedWith: [],
      busy: false,
    },
    { loop: name(loop.device), path: loop.backingFile, kind: 'file', sharedWith: [], busy: false },
  ]);

  const result = await resizer.grow(upper.device);
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.strictEqual(
    await dumpe2fsBytes(loop.device),
    256 * MiB,
    'the same filesystem, seen through the lower device',
  );
  await upper.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('a loop device over a deleted file: voe cannot see what else uses that data; refused FSRESIZE_DEVICE_IN_USE, nothing changes', async () => {
  const { resizer, calls, loop } = await usedExt4();
  await rm(loop.backingFile);
  await refusedInUse(
    resizer,
    loop.device,
    new RegExp(
      `^ext4 on ${escaped(loop.device)} is not mounted here, but what it shows lies in ${escaped(loop.backingFile)} \\(deleted\\), which does not lead to a file or device here`,
    ),
  );
  assert.deepStrictEqual(
    calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'),
    [],
    'neither e2fsck nor resize2fs ran',
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
});

it('refusesExclusiveOpen: false for a free device (closed again), true while it is mounted, or for a path that cannot be opened or does not answer in time', async () => {
  const { scratch, loop, mnt } = await usedExt4();
  assert.isFalse(await refusesExclusiveOpen(loop.device, Date.now() + 10_000));
  assert.isFalse(
    await refusesExclusiveOpen(loop.device, Date.now() + 10_000),
    'the first probe let it go',
  );
  await loop.mount(mnt);
  assert.isTrue(await refusesExclusiveOpen(loop.device, Date.now() + 10_000));
  await loop.unmount(mnt);
  assert.isTrue(await refusesExclusiveOpen(join(mnt, 'missing'), Date.now() + 10_000));
  const hung = await scratch.directory('fuse');
  const { stop } = await mountHungFuse(hung);
  assert.isTrue(
    await refusesExclusiveOpen(join(hung, 'disk'), Date.now() + 300),
    'an open that never answers',
  );
  await stop();
});

it('a loop device stacked on the device through a node deleted since (its backing path leads nowhere): recognised by showing the same data, refused FSRESIZE_DEVICE_IN_USE; a loop device over a deleted file of other data is not in the way', async () => {
  const { scratch, resizer, calls, loop, mnt, sums } = await usedExt4();
  const node = `${await scratch.directory('nodes')}/disk`;
  await execFileAsync('mknod', [
    node,
    'b',
    ...majorMinorOf((await stat(loop.device)).rdev).split(':'),
  ]);
  const upper = await scratch.attachFile(node);
  await rm(node);
  // Another loop device over a deleted file, holding other data.
  const unrelated = await scratch.attach(16 * MiB);
  await execFileAsync('mkfs.ext4', ['-q', unrelated.device]);
  await rm(unrelated.backingFile);
  await refusedInUse(
    resizer,
    loop.device,
    new RegExp(
      `^ext4 on ${escaped(loop.device)} is not mounted here, but ${escaped(upper.device.replace('/dev/', ''))} \\(over ${escaped(node)} \\(deleted\\), which voe cannot see from here\\) is stacked on the device`,
    ),
  );
  assert.deepStrictEqual(
    calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'),
    [],
    'neither e2fsck nor resize2fs ran',
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);

  await upper.detach();
  const result = await resizer.grow(loop.device);
  assert.strictEqual(
    result.action,
    'grown',
    `${result.reason} (the unrelated loop device is no user)`,
  );
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});
