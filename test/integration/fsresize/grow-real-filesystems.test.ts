import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { join } from 'node:path';
import { isFsResizeError } from '../../../src/fsresize/index.js';
import {
  hasCapSysResource,
  MiB,
  readChecksums,
  sh,
  writeChecksummedFiles,
} from '../../support/fsresize/loop-device.js';
import { growCalls } from '../../support/fsresize/recording-runner.js';
import {
  blockdevBytes,
  btrfsBytes,
  dumpe2fsBytes,
  mountedXfs,
  setup,
  usedExt4,
  xfsBytes,
} from '../../support/fsresize/fixtures.js';

it('ext4 offline: resize2fs grows the unmounted filesystem to the device and every file survives', async () => {
  const { resizer, calls, loop, mnt, sums } = await usedExt4();

  const inspection = await resizer.inspect(loop.device);
  assert.strictEqual(inspection.filesystem, 'ext4');
  assert.strictEqual(inspection.deviceBytes, await blockdevBytes(loop.device));
  assert.strictEqual(inspection.filesystemBytes, await dumpe2fsBytes(loop.device));
  assert.isNull(inspection.mountPoint);
  assert.isTrue(resizer.needsResize(inspection));

  const result = await resizer.grow(loop.device);
  assert.strictEqual(result.action, 'grown');
  assert.strictEqual(result.filesystem, 'ext4');
  assert.strictEqual(result.beforeBytes, 64 * MiB);
  assert.strictEqual(result.afterBytes, 256 * MiB);
  assert.strictEqual(result.afterBytes, await dumpe2fsBytes(loop.device));
  assert.deepStrictEqual(result.command, ['resize2fs', loop.device]);
  assert.strictEqual(growCalls(calls), 1);
  // Whether e2fsck ran depends on whether mkfs and the mount fell in the same second; the
  // core asks exactly when resize2fs would (see the next test).
  assert.strictEqual(
    calls.filter((c) => c[0] === 'e2fsck').length,
    inspection.extCheckNeeded ? 1 : 0,
  );

  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('ext4 offline, mounted since its last check: e2fsck -f -p runs first, so resize2fs does not refuse', async () => {
  // Last check long before the last mount: a bare offline resize2fs now says
  // "Please run 'e2fsck -f <device>' first" (what made this case fail at random before).
  const { resizer, calls, loop, mnt, sums } = await usedExt4({
    beforeGrowing: (loop) => sh('tune2fs', ['-T', '20000101', loop.device]),
  });
  await expectRejection(
    sh('resize2fs', [loop.device, '64M']),
    /Please run 'e2fsck -f/,
    'a bare resize2fs refuses (same size: harmless if it did not)',
  );
  assert.isTrue(
    (await resizer.inspect(loop.device)).extCheckNeeded,
    'the core sees what resize2fs sees',
  );
  const dryRun = await resizer.grow(loop.device, { dryRun: true });
  assert.match(dryRun.reason, /with: e2fsck -f -p \S+ && resize2fs \S+$/);
  assert.deepStrictEqual(dryRun.precheck, {
    command: ['e2fsck', '-f', '-p', loop.device],
    exitCode: null,
  });

  const result = await resizer.grow(loop.device);
  assert.strictEqual(result.action, 'grown');
  assert.strictEqual(result.afterBytes, 256 * MiB);
  assert.deepStrictEqual(result.precheck, {
    command: ['e2fsck', '-f', '-p', loop.device],
    exitCode: 0,
  });
  assert.match(result.reason, /^checked \(e2fsck -f -p \S+, exit 0: no errors\) and grew ext4/);
  assert.deepStrictEqual(
    calls.filter((c) => c[0] === 'e2fsck'),
    [['e2fsck', '-f', '-p', loop.device]],
  );
  assert.ok(
    calls.findIndex((c) => c[0] === 'e2fsck') < calls.findIndex((c) => c[0] === 'resize2fs'),
    'checked before growing',
  );
  assert.isFalse((await resizer.inspect(loop.device)).extCheckNeeded, 'the check was recorded');
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('ext4 copied while mounted (journal needs recovery): e2fsck -f -p replays it first, then resize2fs grows it with every file intact', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  const mnt = await scratch.directory('mnt');
  await loop.mount(mnt);
  const sums = await writeChecksummedFiles(mnt, 3);
  // A crash-consistent copy, as a snapshot of a live volume is: the journal still needs replaying.
  const snapshotFile = join(await scratch.directory('snapshots'), 'snap.img');
  await sh('cp', ['--sparse=always', loop.backingFile, snapshotFile]);
  await loop.unmount(mnt);
  const snapshot = await scratch.attachFile(snapshotFile);
  assert.match(
    await sh('dumpe2fs', ['-h', snapshot.device]),
    /^Filesystem features:.*needs_recovery/m,
    'the copy needs journal recovery',
  );
  await snapshot.growBacking(192 * MiB);
  await expectRejection(
    sh('resize2fs', [snapshot.device, '64M']),
    /Please run 'e2fsck -f/,
    'a bare resize2fs refuses (same size: harmless if it did not)',
  );
  assert.isTrue(
    (await resizer.inspect(snapshot.device)).extCheckNeeded,
    'the core sees what resize2fs sees',
  );

  const result = await resizer.grow(snapshot.device);
  assert.strictEqual(result.action, 'grown', result.reason);
  // The journal was replayed: e2fsck says it corrected the filesystem (exit 1), and the result says so.
  assert.deepStrictEqual(result.precheck, {
    command: ['e2fsck', '-f', '-p', snapshot.device],
    exitCode: 1,
  });
  assert.match(
    result.reason,
    /^checked \(e2fsck -f -p \S+, exit 1: errors corrected\) and grew ext4/,
  );
  assert.strictEqual(result.afterBytes, 192 * MiB);
  assert.strictEqual(await dumpe2fsBytes(snapshot.device), 192 * MiB);
  assert.deepStrictEqual(
    calls.filter((c) => c[0] === 'e2fsck'),
    [['e2fsck', '-f', '-p', snapshot.device]],
  );
  assert.ok(
    calls.findIndex((c) => c[0] === 'e2fsck') < calls.findIndex((c) => c[0] === 'resize2fs'),
    'checked before growing',
  );
  assert.notMatch(await sh('dumpe2fs', ['-h', snapshot.device]), /needs_recovery/);
  await snapshot.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('ext4 that already fills its device but records errors (as a resize2fs stopped midway leaves it): checked with e2fsck -f -p, never passed as "nothing to grow"', async () => {
  const { resizer, calls, loop, mnt, sums } = await usedExt4({ growTo: 64 * MiB });
  await sh('debugfs', ['-w', '-R', 'ssv state 3', loop.device]);
  assert.match(
    await sh('dumpe2fs', ['-h', loop.device]),
    /^Filesystem state: +clean with errors$/m,
  );
  const inspection = await resizer.inspect(loop.device);
  assert.isTrue(inspection.extErrors);
  assert.isFalse(resizer.needsResize(inspection), 'it fills its device');

  const dryRun = await resizer.grow(loop.device, { dryRun: true });
  assert.strictEqual(dryRun.action, 'noop');
  assert.match(
    dryRun.reason,
    /^dry run: ext4 on \S+ already fills the device \(64\.0 MiB of 64\.0 MiB\) but records errors \(e\.g\. a resize stopped midway\): would check it with: e2fsck -f -p \S+$/,
  );
  assert.strictEqual(calls.filter((c) => c[0] === 'e2fsck').length, 0, 'a dry run checks nothing');

  const result = await resizer.grow(loop.device);
  assert.strictEqual(result.action, 'noop');
  assert.deepStrictEqual(result.precheck, {
    command: ['e2fsck', '-f', '-p', loop.device],
    exitCode: 0,
  });
  assert.match(
    result.reason,
    /but records errors \(e\.g\. a resize stopped midway\): checked it \(e2fsck -f -p \S+, exit 0: no errors\); nothing to grow$/,
  );
  assert.deepStrictEqual(result.command, null);
  assert.strictEqual(growCalls(calls), 0);
  assert.match(
    await sh('dumpe2fs', ['-h', loop.device]),
    /^Filesystem state: +clean$/m,
    'e2fsck cleared the error state',
  );
  assert.isNull(
    (await resizer.grow(loop.device)).precheck,
    'once checked, a second call does nothing',
  );
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('ext4 that fills its device and records errors preen mode cannot fix: FSRESIZE_FSCK_FAILED, never a success', async () => {
  const { resizer, loop } = await usedExt4({ growTo: 64 * MiB });
  await sh('debugfs', ['-w', '-R', 'sif <7> block[0] 999999999', loop.device]);
  await sh('debugfs', ['-w', '-R', 'ssv state 3', loop.device]);
  await expectRejection(resizer.grow(loop.device), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_FSCK_FAILED');
    assert.match(error.message, /checking ext4 on \S+, which records errors/);
    assert.match(error.message, /UNEXPECTED INCONSISTENCY/);
    return true;
  });
});

it('xfs online: xfs_growfs -d grows the mounted filesystem and every file survives', async () => {
  const {
    resizer,
    calls,
    loop,
    mnt,
    sums,
    beforeBytes: before,
  } = await mountedXfs({ growTo: 1024 * MiB });

  const result = await resizer.grow(loop.device);
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.strictEqual(result.mountPoint, mnt);
  assert.deepStrictEqual(result.command, ['xfs_growfs', '-d', mnt]);
  assert.strictEqual(result.beforeBytes, before);
  assert.strictEqual(result.afterBytes, await xfsBytes(mnt));
  assert.strictEqual(result.afterBytes, 1024 * MiB);
  assert.strictEqual(growCalls(calls), 1);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
  await loop.unmount(mnt);
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('btrfs online: btrfs filesystem resize max grows the mounted filesystem and every file survives', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(256 * MiB);
  await sh('mkfs.btrfs', ['-q', loop.device]);
  const mnt = await scratch.directory('mnt');
  await loop.mount(mnt);
  const sums = await writeChecksummedFiles(mnt);
  await loop.growBacking(640 * MiB);

  const result = await resizer.grow(loop.device, { mountPath: mnt });
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.deepStrictEqual(result.command, ['btrfs', 'filesystem', 'resize', 'max', mnt]);
  assert.strictEqual(result.beforeBytes, 256 * MiB);
  assert.strictEqual(result.afterBytes, 640 * MiB);
  assert.strictEqual(result.afterBytes, await btrfsBytes(mnt));
  assert.strictEqual(growCalls(calls), 1);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('ext4 online: grows with CAP_SYS_RESOURCE, otherwise fails with FSRESIZE_PERMISSION_DENIED and changes nothing', async () => {
  const { scratch, resizer } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  const mnt = await scratch.directory('mnt');
  await loop.mount(mnt);
  const sums = await writeChecksummedFiles(mnt);
  await loop.growBacking(192 * MiB);
  const capable = await hasCapSysResource();

  if (capable) {
    const result = await resizer.grow(loop.device);
    assert.strictEqual(result.action, 'grown', result.reason);
    assert.strictEqual(result.mountPoint, mnt);
    assert.strictEqual(result.afterBytes, 192 * MiB);
    assert.strictEqual(result.afterBytes, await dumpe2fsBytes(loop.device));
  } else {
    await expectRejection(resizer.grow(loop.device), (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_PERMISSION_DENIED');
      assert.strictEqual(error.tool?.tool, 'resize2fs');
      assert.match(error.tool?.stderr ?? '', /Permission denied/);
      assert.match(error.message, /CAP_SYS_RESOURCE/);
      return true;
    });
    assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
  }
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});
