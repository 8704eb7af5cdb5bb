import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createDeviceLock,
  createExecFileRunner,
  createFsResizer,
  isFsResizeError,
} from '../../../src/fsresize/index.js';
import type { FsResizeErrorCode } from '../../../src/fsresize/model/fsresize-error.js';
import {
  GiB,
  hasCapSysResource,
  MiB,
  readChecksums,
  sh,
  writeChecksummedFiles,
} from '../../support/fsresize/loop-device.js';
import { growCalls } from '../../support/fsresize/recording-runner.js';
import { dumpe2fsBytes, setup, usedExt4 } from '../../support/fsresize/fixtures.js';

function rejectsWith(code: FsResizeErrorCode, pattern: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(isFsResizeError(error), `expected FsResizeError, got ${String(error)}`);
    assert.strictEqual(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

it('an unformatted device is a no-op with the reason', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(32 * MiB);
  await loop.growBacking(64 * MiB);
  const result = await resizer.grow(loop.device);
  assert.strictEqual(result.action, 'noop');
  assert.isNull(result.filesystem);
  assert.isNull(result.beforeBytes);
  assert.strictEqual(result.deviceBytes, 64 * MiB);
  assert.match(result.reason, /not formatted/);
  assert.strictEqual(growCalls(calls), 0);
});

it('a device of 0 bytes (a loop device over an empty file) is FSRESIZE_DEVICE_EMPTY, not "unformatted"', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(0);
  await expectRejection(
    resizer.grow(loop.device),
    rejectsWith('FSRESIZE_DEVICE_EMPTY', /has no size \(0 bytes\)/),
  );
  // Only the read-only probe, started with the size reads, may have run; its answer is not used.
  assert.deepStrictEqual(
    calls.map((c) => c[0]),
    ['blkid'],
  );
});

it('block mode is a no-op with the reason, even on a formatted device', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(32 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(64 * MiB);
  const result = await resizer.grow(loop.device, { blockMode: true });
  assert.strictEqual(result.action, 'noop');
  assert.match(result.reason, /block-mode volume/);
  assert.strictEqual(growCalls(calls), 0);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 32 * MiB);
});

it('a read-only mount is left alone with the reason', async () => {
  const { resizer, calls, loop, mnt, sums } = await usedExt4({
    files: 2,
    growTo: 128 * MiB,
    beforeGrowing: (l, dir) => l.mount(dir, ['ro']),
  });
  assert.isFalse(resizer.needsResize(await resizer.inspect(loop.device)));
  const result = await resizer.grow(loop.device);
  assert.strictEqual(result.action, 'noop');
  assert.match(result.reason, /mounted read-only at/);
  assert.strictEqual(result.beforeBytes, 64 * MiB);
  assert.strictEqual(result.afterBytes, 64 * MiB);
  assert.strictEqual(growCalls(calls), 0);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('a read-only device is left alone with the reason', async () => {
  const { scratch, resizer, calls } = await setup();
  const writable = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', writable.device]);
  await writable.growBacking(128 * MiB);
  // The same (already grown) backing file through a read-only loop device.
  const { device } = await scratch.attachFile(writable.backingFile, { readOnly: true });
  assert.isFalse(resizer.needsResize(await resizer.inspect(device)));
  const result = await resizer.grow(device);
  assert.strictEqual(result.action, 'noop');
  assert.match(result.reason, /read-only \(blockdev --getro = 1\)/);
  assert.strictEqual(growCalls(calls), 0);
  assert.strictEqual(await dumpe2fsBytes(device), 64 * MiB);
});

it('a device smaller than its filesystem (backing file shrunk) is refused; nothing runs, nothing changes', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(128 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(64 * MiB);
  assert.isFalse(resizer.needsResize(await resizer.inspect(loop.device)));
  await expectRejection(
    resizer.grow(loop.device),
    rejectsWith(
      'FSRESIZE_DEVICE_SMALLER_THAN_FILESYSTEM',
      /is smaller than the ext4 filesystem on it \(128\.0 MiB\).*nothing was changed/,
    ),
  );
  assert.strictEqual(growCalls(calls), 0);
  assert.strictEqual(calls.filter((c) => c[0] === 'e2fsck').length, 0);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 128 * MiB);
});

it('a device 512 bytes smaller than its filesystem is refused with both sizes exact, not "100.0 MiB is smaller than 100.0 MiB"', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(100 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(100 * MiB - 512);
  await expectRejection(
    resizer.grow(loop.device),
    rejectsWith(
      'FSRESIZE_DEVICE_SMALLER_THAN_FILESYSTEM',
      /^\S+ \(100\.0 MiB \(104857088 bytes\)\) is smaller than the ext4 filesystem on it \(100\.0 MiB \(104857600 bytes\)\): /,
    ),
  );
  assert.deepStrictEqual(
    calls.filter((c) => c[0] !== 'blkid'),
    [],
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 100 * MiB);
});

it('a partitioned device is refused with FSRESIZE_PARTITIONED', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh(
    'sfdisk',
    ['--quiet', '--no-reread', '--no-tell-kernel', loop.device],
    'label: gpt\n,,L\n',
  );
  assert.match(await sh('blkid', ['-p', '-o', 'export', loop.device]), /PTTYPE=gpt/);
  await loop.growBacking(128 * MiB);
  await expectRejection(
    resizer.grow(loop.device),
    rejectsWith(
      'FSRESIZE_PARTITIONED',
      new RegExp(
        `^${loop.device} holds a gpt partition table, not a filesystem .*nothing was changed — grow the partition \\(e\\.g\\. growpart ${loop.device} 1\\), then run voe on the partition's device \\(e\\.g\\. ${loop.device}p1: `,
      ),
    ),
  );
  assert.strictEqual(growCalls(calls), 0);
});

it("a partitioned disk: voe refuses the disk and names the partition's device; the partition grown, voe grows the filesystem on that device", async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(64 * MiB, { partScan: true });
  await sh(
    'sfdisk',
    ['--quiet', '--no-reread', '--no-tell-kernel', loop.device],
    'label: gpt\n,32M,L\n',
  );
  await sh('partx', ['--add', loop.device]);
  const partition = `${loop.device}p1`;
  await sh('mkfs.ext4', ['-q', partition]);
  const mnt = await scratch.directory('mnt');
  // (Cleanup unmounts whatever is left mounted under the scratch, should the test fail here.)
  await sh('mount', [partition, mnt]);
  const sums = await writeChecksummedFiles(mnt, 2);
  await sh('umount', [mnt]);
  await loop.growBacking(128 * MiB);
  const told = await resizer.grow(loop.device).then(
    () => null,
    (error: unknown) => error,
  );
  assert.ok(isFsResizeError(told) && told.code === 'FSRESIZE_PARTITIONED', String(told));
  assert.match(
    told.message,
    new RegExp(`then run voe on the partition's device \\(e\\.g\\. ${partition}: `),
  );
  // What the message says (growpart is not installed here: sfdisk moves the partition's end the same way).
  await sh(
    'sfdisk',
    ['--quiet', '--no-reread', '--no-tell-kernel', '-N', '1', loop.device],
    ', +\n',
  );
  await sh('partx', ['--update', loop.device]);
  const result = await resizer.grow(partition);
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.strictEqual(result.beforeBytes, 32 * MiB);
  assert.ok((result.afterBytes ?? 0) > 120 * MiB, String(result.afterBytes));
  assert.strictEqual(result.afterBytes, await dumpe2fsBytes(partition));
  assert.strictEqual(growCalls(calls), 1);
  await scratch.mountFrom(partition, mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('an unsupported filesystem is refused with a message naming it', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.vfat', [loop.device]);
  await loop.growBacking(128 * MiB);
  await expectRejection(
    resizer.grow(loop.device),
    rejectsWith('FSRESIZE_UNSUPPORTED_FILESYSTEM', /resize of vfat is not supported/),
  );
  assert.strictEqual(growCalls(calls), 0);
});

it('an unmounted xfs is a clear FSRESIZE_NOT_MOUNTED error (xfs only grows mounted)', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(320 * MiB);
  await sh('mkfs.xfs', ['-q', loop.device]);
  await loop.growBacking(512 * MiB);
  const inspection = await resizer.inspect(loop.device);
  assert.strictEqual(inspection.filesystemBytes, 320 * MiB);
  assert.isTrue(resizer.needsResize(inspection));
  await expectRejection(
    resizer.grow(loop.device),
    rejectsWith('FSRESIZE_NOT_MOUNTED', /xfs only grows while mounted/),
  );
  assert.strictEqual(growCalls(calls), 0);
});

it('a --mount that is not a mount point of the device is refused', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  const elsewhere = await scratch.directory('elsewhere');
  await loop.growBacking(128 * MiB);
  await expectRejection(
    resizer.grow(loop.device, { mountPath: elsewhere }),
    rejectsWith('FSRESIZE_MOUNT_MISMATCH', /is not a mount point/),
  );
  assert.strictEqual(growCalls(calls), 0);
});

it('a missing device, a regular file and a missing tool are typed errors', async () => {
  const { scratch, resizer } = await setup();
  await expectRejection(
    resizer.grow('/dev/voe-does-not-exist'),
    rejectsWith('FSRESIZE_DEVICE_NOT_FOUND', /does not exist/),
  );
  const loop = await scratch.attach(32 * MiB);
  await expectRejection(
    resizer.grow(loop.backingFile),
    rejectsWith(
      'FSRESIZE_NOT_A_BLOCK_DEVICE',
      /is not a block device but a file; pass the block device/,
    ),
  );
  await expectRejection(
    resizer.grow('/dev/null'),
    rejectsWith(
      'FSRESIZE_NOT_A_BLOCK_DEVICE',
      /^\/dev\/null is not a block device but a character device; pass the block device/,
    ),
  );
  const toolless = createFsResizer({
    runner: createExecFileRunner({ searchPath: '/voe-no-tools-here' }),
    lock: createDeviceLock(),
  });
  await expectRejection(toolless.grow(loop.device), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_TOOL_MISSING');
    assert.strictEqual(error.tool?.tool, 'blkid');
    return true;
  });
});

it('ext4 without the 64bit feature on a device past 2^32 blocks (17 TiB, sparse on a tmpfs) is refused FSRESIZE_EXT_32BIT_LIMIT, offline and online: neither e2fsck nor resize2fs runs, the files are intact', async () => {
  const { scratch, resizer, calls } = await setup();
  // The root filesystem (ext4) limits a file to 16 TiB: the backing file lives on a tmpfs.
  const big = await scratch.tmpfs('big', 512 * MiB);
  const backingFile = join(big, 'disk.img');
  await writeFile(backingFile, '');
  await sh('truncate', ['-s', String(GiB), backingFile]);
  const loop = await scratch.attachFile(backingFile);
  await sh('mkfs.ext4', ['-q', '-O', '^64bit', loop.device]);
  assert.notMatch(await sh('dumpe2fs', ['-h', loop.device]), /^Filesystem features:.*\b64bit\b/m);
  const mnt = await scratch.directory('mnt');
  await loop.mount(mnt);
  const sums = await writeChecksummedFiles(mnt, 2);
  await loop.unmount(mnt);
  // Mounted after its last check: an offline grow would check it first.
  await sh('tune2fs', ['-T', '20000101', loop.device]);
  await loop.growBacking(17 * 1024 * GiB);
  // What voe used to do: resize2fs refuses, on every retry.
  await expectRejection(
    sh('resize2fs', ['-f', loop.device]),
    /New size too large to be expressed in 32 bits/,
  );
  const inspection = await resizer.inspect(loop.device);
  assert.isFalse(inspection.ext64bit);
  const refused = rejectsWith(
    'FSRESIZE_EXT_32BIT_LIMIT',
    /^ext4 on \S+ cannot grow to 17\.0 TiB: without the 64bit feature it cannot address more than 17592186040320 bytes .*nothing was changed — convert it to 64bit offline \(unmounted: e2fsck -f \S+, then resize2fs -b \S+\) and retry, or keep the volume at or below 17592186044416 bytes/,
  );
  await expectRejection(resizer.grow(loop.device, { dryRun: true }), refused);
  await expectRejection(resizer.grow(loop.device), refused);
  await loop.mount(mnt);
  await expectRejection(
    resizer.grow(loop.device),
    refused,
    'online too: resize2fs refuses it mounted as well',
  );
  assert.deepStrictEqual(
    calls.filter((c) => c[0] !== 'blkid'),
    [],
    'only the probes ran',
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), GiB);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('an unmounted bigalloc ext4 is refused FSRESIZE_EXT_BIGALLOC_OFFLINE (resize2fs will not grow it unforced): nothing runs, every file intact; mounted, it grows online', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', '-O', 'bigalloc', loop.device]);
  assert.match(await sh('dumpe2fs', ['-h', loop.device]), /^Filesystem features:.*\bbigalloc\b/m);
  const mnt = await scratch.directory('mnt');
  await loop.mount(mnt);
  const sums = await writeChecksummedFiles(mnt, 2);
  await loop.unmount(mnt);
  // Mounted after its last check: an offline grow would check it first.
  await sh('tune2fs', ['-T', '20000101', loop.device]);
  await loop.growBacking(128 * MiB);
  assert.isTrue((await resizer.inspect(loop.device)).extBigalloc);
  const refused = rejectsWith(
    'FSRESIZE_EXT_BIGALLOC_OFFLINE',
    /^ext4 on \S+ uses bigalloc and is not mounted; .*nothing was changed — mount it and grow it online .* e2fsck -f \S+, then resize2fs -f \S+$/,
  );
  await expectRejection(
    resizer.grow(loop.device, { dryRun: true }),
    refused,
    'the dry run says the same',
  );
  await expectRejection(resizer.grow(loop.device), refused);
  assert.deepStrictEqual(
    calls.filter((c) => c[0] !== 'blkid'),
    [],
    'only the probes ran',
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
  // What voe used to do: check it, then run a resize2fs that always refuses.
  await sh('e2fsck', ['-f', '-p', loop.device]);
  await expectRejection(
    sh('resize2fs', [loop.device]),
    /Resizing bigalloc file systems has not been fully tested/,
  );
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
  // Online it is the kernel's to grow: not refused.
  const capable = await hasCapSysResource();
  if (capable) {
    const result = await resizer.grow(loop.device);
    assert.strictEqual(result.action, 'grown', result.reason);
    assert.strictEqual(result.afterBytes, 128 * MiB);
    assert.strictEqual(await dumpe2fsBytes(loop.device), 128 * MiB);
  } else {
    await expectRejection(
      resizer.grow(loop.device),
      (error: unknown) => isFsResizeError(error) && error.code === 'FSRESIZE_PERMISSION_DENIED',
    );
  }
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});
