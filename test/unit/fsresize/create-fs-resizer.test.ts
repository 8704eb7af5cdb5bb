import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isFsResizeError } from '../../../src/fsresize/index.js';
import { FsResizeError } from '../../../src/fsresize/model/fsresize-error.js';
import { extSuperblock } from '../../support/fsresize/ext-superblock.js';
import { fakeResizer } from '../../support/fsresize/fake-fsresize-ports.js';

const MiB = 1024 * 1024;

it('blkid exit 2 without a word is an unformatted device (a no-op with the reason)', async () => {
  const resizer = fakeResizer({
    devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 64 * MiB } },
    tool: () => ({ exitCode: 2 }),
  });
  const result = await resizer.grow('/dev/sdb');
  assert.strictEqual(result.action, 'noop');
  assert.match(result.reason, /not formatted/);
});

it('blkid exit 2 with an error on stderr is a tool failure, not "unformatted"', async () => {
  const denied = fakeResizer({
    devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 64 * MiB } },
    tool: () => ({ exitCode: 2, stderr: 'blkid: error: /dev/sdb: Permission denied\n' }),
  });
  await expectRejection(denied.inspect('/dev/sdb'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_PERMISSION_DENIED');
    assert.strictEqual(error.tool?.tool, 'blkid');
    assert.strictEqual(error.tool?.exitCode, 2);
    return true;
  });
  const broken = fakeResizer({
    devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 64 * MiB } },
    tool: () => ({ exitCode: 2, stderr: 'blkid: error: /dev/sdb: Input/output error\n' }),
  });
  await expectRejection(broken.grow('/dev/sdb'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_TOOL_FAILED');
    assert.match(
      error.message,
      /blkid .* exited with 2 \(blkid: error: \/dev\/sdb: Input\/output error\)/,
    );
    return true;
  });
});

it('a device of 0 bytes is FSRESIZE_DEVICE_EMPTY, saying it has no size; whatever blkid answers, nothing else runs', async () => {
  // blkid starts with the sysfs reads (it is the slow step), so it may have run; its answer is not used.
  const complaining = fakeResizer({
    devices: { '/dev/loop9': { majorMinor: '7:9', bytes: 0 } },
    tool: () => ({ exitCode: 2, stderr: 'blkid: error: /dev/loop9: No such device or address\n' }),
  });
  await expectRejection(
    complaining.grow('/dev/loop9'),
    (error: unknown) => isFsResizeError(error) && error.code === 'FSRESIZE_DEVICE_EMPTY',
  );
  assert.deepStrictEqual(
    complaining.calls.map((c) => c[0]),
    ['blkid'],
  );
  const resizer = fakeResizer({
    devices: { '/dev/loop9': { majorMinor: '7:9', bytes: 0, superblock: extSuperblock(1000, 2) } },
    tool: () => ({ exitCode: 2 }),
  });
  await expectRejection(resizer.grow('/dev/loop9'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_DEVICE_EMPTY');
    assert.match(error.message, /^\/dev\/loop9 has no size \(0 bytes\)/);
    assert.match(error.message, /nothing was changed/);
    return true;
  });
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid'],
    'only the read-only probe ran',
  );
  const inspection = await resizer.inspect('/dev/loop9');
  assert.strictEqual(inspection.deviceBytes, 0);
  assert.isNull(inspection.filesystem);
  assert.isFalse(resizer.needsResize(inspection));
});

/** An unmounted ext4 on /dev/sdb that resize2fs would want checked; resize2fs grows its superblock to the device. */
function extNeedingCheck(e2fsckExit: number, e2fsckOutput = '') {
  const device = {
    majorMinor: '8:16',
    bytes: 256 * MiB,
    superblock: extSuperblock(64 * 256, 2, { mountTime: 1_700_000_100 }),
  };
  return fakeResizer({
    devices: { '/dev/sdb': device },
    tool: (command) => {
      if (command === 'blkid') return { stdout: 'TYPE=ext4\n' };
      if (command === 'e2fsck') return { exitCode: e2fsckExit, stdout: e2fsckOutput };
      if (command === 'resize2fs') device.superblock = extSuperblock(256 * 256, 2);
      return undefined;
    },
  });
}

it('the result says the pre-check ran: precheck {command, exitCode} and a reason starting "checked (...)"', async () => {
  const resizer = extNeedingCheck(
    1,
    '/dev/sdb: recovering journal\n/dev/sdb: clean, 11/16384 files\n',
  );
  const result = await resizer.grow('/dev/sdb');
  assert.strictEqual(result.action, 'grown');
  assert.deepStrictEqual(result.command, ['resize2fs', '/dev/sdb']);
  assert.deepStrictEqual(result.precheck, {
    command: ['e2fsck', '-f', '-p', '/dev/sdb'],
    exitCode: 1,
  });
  assert.strictEqual(
    result.reason,
    'checked (e2fsck -f -p /dev/sdb, exit 1: errors corrected) and grew ext4 on /dev/sdb from 64.0 MiB to 256.0 MiB offline',
  );
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid', 'e2fsck', 'resize2fs'],
  );

  const clean = await extNeedingCheck(0).grow('/dev/sdb');
  assert.deepStrictEqual(clean.precheck, {
    command: ['e2fsck', '-f', '-p', '/dev/sdb'],
    exitCode: 0,
  });
  assert.match(
    clean.reason,
    /^checked \(e2fsck -f -p \/dev\/sdb, exit 0: no errors\) and grew ext4/,
  );
});

it('a dry run names the pre-check it would run (exitCode null); a grow without one says precheck null', async () => {
  const resizer = extNeedingCheck(1);
  const dry = await resizer.grow('/dev/sdb', { dryRun: true });
  assert.strictEqual(dry.action, 'noop');
  assert.deepStrictEqual(dry.command, ['resize2fs', '/dev/sdb']);
  assert.deepStrictEqual(dry.precheck, {
    command: ['e2fsck', '-f', '-p', '/dev/sdb'],
    exitCode: null,
  });
  assert.match(
    dry.reason,
    /^dry run: would check and grow .* with: e2fsck -f -p \/dev\/sdb && resize2fs \/dev\/sdb$/,
  );
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid'],
  );

  const device = { majorMinor: '8:16', bytes: 256 * MiB, superblock: extSuperblock(64 * 256, 2) };
  const unchecked = fakeResizer({
    devices: { '/dev/sdb': device },
    tool: (command) => {
      if (command === 'blkid') return { stdout: 'TYPE=ext4\n' };
      if (command === 'resize2fs') device.superblock = extSuperblock(256 * 256, 2);
      return undefined;
    },
  });
  const result = await unchecked.grow('/dev/sdb');
  assert.isNull(result.precheck);
  assert.match(result.reason, /^grew ext4/);
});

it('a caller waiting for the device lock does not touch the device (not even blkid) until it holds the lock', async () => {
  // The holder's offline grow looks for other programs that have the device open: a waiter's probe
  // would be one, and would make the holder refuse.
  const device = { majorMinor: '8:16', bytes: 256 * MiB, superblock: extSuperblock(64 * 256, 2) };
  let seenByTheGrow: string[] = [];
  const resizer = fakeResizer({
    devices: { '/dev/sdb': device },
    tool: (command) => {
      if (command === 'blkid') return { stdout: 'TYPE=ext4\n' };
      if (command === 'resize2fs') {
        seenByTheGrow = resizer.calls.map((c) => c[0]!);
        device.superblock = extSuperblock(256 * 256, 2);
      }
      return undefined;
    },
  });
  const [first, second] = await Promise.all([resizer.grow('/dev/sdb'), resizer.grow('/dev/sdb')]);
  assert.strictEqual(first.action, 'grown');
  assert.strictEqual(second.action, 'noop', second.reason);
  assert.deepStrictEqual(
    seenByTheGrow,
    ['blkid', 'resize2fs'],
    'while the first grew, the second had run nothing',
  );
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid', 'resize2fs', 'blkid'],
  );
});

it('a grow told the size the volume must have refuses a device still short of it FSRESIZE_DEVICE_TOO_SMALL, with only the probe run; a bad size is FSRESIZE_INVALID_ARGUMENT before anything', async () => {
  const device = { majorMinor: '8:16', bytes: 128 * MiB, superblock: extSuperblock(64 * 256, 2) };
  const resizer = fakeResizer({
    devices: { '/dev/sdb': device },
    tool: (command) => {
      if (command === 'resize2fs') device.superblock = extSuperblock(256 * 256, 2);
      return command === 'blkid' ? { stdout: 'TYPE=ext4\n' } : undefined;
    },
  });
  await expectRejection(
    resizer.grow('/dev/sdb', { requiredDeviceBytes: 256 * MiB }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_DEVICE_TOO_SMALL');
      assert.match(
        error.message,
        /^\/dev\/sdb is 134217728 bytes, less than the requested 268435456: /,
      );
      return true;
    },
  );
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid'],
  );
  for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) {
    await expectRejection(
      resizer.grow('/dev/sdb', { requiredDeviceBytes: bad }),
      (error: unknown) => isFsResizeError(error) && error.code === 'FSRESIZE_INVALID_ARGUMENT',
      String(bad),
    );
  }
  assert.strictEqual(resizer.calls.length, 1, 'nothing more ran');
  device.bytes = 256 * MiB;
  const grown = await resizer.grow('/dev/sdb', { requiredDeviceBytes: 256 * MiB });
  assert.strictEqual(grown.action, 'grown', grown.reason);
});

it('a grow tool that fails after the pre-check says the check ran (its fixes are written)', async () => {
  const device = {
    majorMinor: '8:16',
    bytes: 256 * MiB,
    superblock: extSuperblock(64 * 256, 2, { state: 0 }),
  };
  const resizer = fakeResizer({
    devices: { '/dev/sdb': device },
    tool: (command) => {
      if (command === 'blkid') return { stdout: 'TYPE=ext4\n' };
      if (command === 'e2fsck') return { exitCode: 1 };
      if (command === 'resize2fs')
        return {
          exitCode: 1,
          stderr: 'resize2fs: No space left on device while trying to resize /dev/sdb\n',
        };
      return undefined;
    },
  });
  await expectRejection(resizer.grow('/dev/sdb'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_TOOL_FAILED');
    assert.match(error.message, /e2fsck -f -p \/dev\/sdb ran first \(exit 1: errors corrected\)/);
    assert.deepStrictEqual(error.details['precheck'], {
      command: ['e2fsck', '-f', '-p', '/dev/sdb'],
      exitCode: 1,
    });
    return true;
  });
});

it('the mount point is looked at again just before the grow tool: mounted over meanwhile, nothing runs', async () => {
  const resizer = fakeResizer({
    devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 512 * MiB } },
    mountinfo: '40 27 8:16 / /m rw - xfs /dev/sdb rw\n',
    // /m shows mount 40 while the core inspects, then another mount (41) covers it.
    visible: (_path, call) => (call === 1 ? 40 : 41),
    tool: (command) => {
      if (command === 'blkid') return { stdout: 'TYPE=xfs\n' };
      if (command === 'xfs_io') return { stdout: 'geom.bsize = 4096\ngeom.datablocks = 65536\n' };
      return undefined;
    },
  });
  await expectRejection(resizer.grow('/dev/sdb'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_MOUNT_HIDDEN');
    assert.match(
      error.message,
      /mounted at \/m but hidden by another mount there now .*nothing was changed/,
    );
    return true;
  });
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid', 'xfs_io'],
    'xfs_growfs did not run',
  );
});

it('a mount point of the device that cannot be opened (a bind-mounted socket on old kernels, a dead FUSE mount) does not stop a grow through another one', async () => {
  const dead = new FsResizeError(
    'FSRESIZE_MOUNT_INACCESSIBLE',
    'cannot open /pods/p/app.sock to see which filesystem it shows (ENXIO)',
  );
  const resizer = fakeResizer({
    devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 512 * MiB } },
    mountinfo:
      '40 27 8:16 / /m rw - xfs /dev/sdb rw\n41 27 8:16 /app.sock /pods/p/app.sock rw - xfs /dev/sdb rw\n',
    visible: (path) => {
      if (path === '/pods/p/app.sock') throw dead;
      return path === '/m' ? 40 : null;
    },
    tool: (command) => {
      if (command === 'blkid') return { stdout: 'TYPE=xfs\n' };
      if (command === 'xfs_io') return { stdout: 'geom.bsize = 4096\ngeom.datablocks = 65536\n' };
      return undefined;
    },
  });
  const inspection = await resizer.inspect('/dev/sdb', { mountPath: '/m' });
  assert.strictEqual(inspection.mountPoint, '/m');
  assert.deepStrictEqual(inspection.unusableMountPoints, [
    { mountPoint: '/pods/p/app.sock', reason: `FSRESIZE_MOUNT_INACCESSIBLE: ${dead.message}` },
  ]);
  assert.deepStrictEqual(
    (await resizer.grow('/dev/sdb', { mountPath: '/m', dryRun: true })).command,
    ['xfs_growfs', '-d', '/m'],
  );
  assert.deepStrictEqual((await resizer.grow('/dev/sdb', { dryRun: true })).command, [
    'xfs_growfs',
    '-d',
    '/m',
  ]);
  await expectRejection(
    resizer.grow('/dev/sdb', { mountPath: '/pods/p/app.sock' }),
    (error: unknown) => error === dead,
  );
  assert.ok(!resizer.calls.some((c) => c[0] === 'xfs_growfs'), 'nothing grown');
});

it('the same filesystem listed twice at its mount point (a bind mount over itself, propagation duplicates) is not stacked: xfs grows; another device under it still is', async () => {
  const xfs = (mountinfo: string) =>
    fakeResizer({
      devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 512 * MiB } },
      mountinfo,
      tool: (command) => {
        if (command === 'blkid') return { stdout: 'TYPE=xfs\n' };
        if (command === 'xfs_io') return { stdout: 'geom.bsize = 4096\ngeom.datablocks = 65536\n' };
        return undefined;
      },
    });
  const twice = xfs('40 27 8:16 / /m rw - xfs /dev/sdb rw\n41 40 8:16 / /m rw - xfs /dev/sdb rw\n');
  const inspection = await twice.inspect('/dev/sdb');
  assert.strictEqual(inspection.mountPoint, '/m');
  assert.isFalse(inspection.mountPointStacked);
  assert.deepStrictEqual(inspection.hiddenMountPoints, [], '/m shows the device');
  assert.deepStrictEqual((await twice.grow('/dev/sdb', { dryRun: true })).command, [
    'xfs_growfs',
    '-d',
    '/m',
  ]);
  assert.deepStrictEqual(
    (await twice.grow('/dev/sdb', { mountPath: '/m', dryRun: true })).command,
    ['xfs_growfs', '-d', '/m'],
  );

  const overOther = xfs(
    '39 27 8:32 / /m rw - ext4 /dev/sdc rw\n40 39 8:16 / /m rw - xfs /dev/sdb rw\n41 40 8:16 / /m rw - xfs /dev/sdb rw\n',
  );
  assert.isTrue((await overOther.inspect('/dev/sdb')).mountPointStacked);
  await expectRejection(
    overOther.grow('/dev/sdb'),
    (error: unknown) => isFsResizeError(error) && error.code === 'FSRESIZE_MOUNT_HIDDEN',
  );
  assert.ok(!overOther.calls.some((c) => c[0] === 'xfs_growfs'));
});

it("a btrfs member device that mountinfo does not name is found mounted through the filesystem's device list", async () => {
  const fsid = '4742ea63-c61d-4c16-a601-a968e178a6a0';
  const resizer = fakeResizer({
    devices: {
      '/dev/loop0': { majorMinor: '7:0', bytes: 256 * MiB },
      '/dev/loop1': { majorMinor: '7:1', bytes: 512 * MiB },
    },
    mountinfo:
      '43 27 0:39 / /m rw - btrfs /dev/loop0 rw\n50 27 0:52 / /other rw - btrfs /dev/loop7 rw\n',
    btrfs: { [fsid]: ['7:0', '7:1'] },
    tool: (command, args) => {
      if (command === 'blkid') return { stdout: `UUID=${fsid}\nTYPE=btrfs\n` };
      if (command === 'btrfs' && args[0] === 'inspect-internal') {
        return {
          stdout:
            'sectorsize\t\t4096\nnum_devices\t\t2\ndev_item.total_bytes\t268435456\ndev_item.devid\t\t2\n',
        };
      }
      return undefined;
    },
  });
  const inspection = await resizer.inspect('/dev/loop1');
  assert.strictEqual(inspection.mountPoint, '/m');
  assert.deepStrictEqual(inspection.mountPoints, ['/m'], 'not the other btrfs');
  const dry = await resizer.grow('/dev/loop1', { dryRun: true });
  assert.deepStrictEqual(dry.command, ['btrfs', 'filesystem', 'resize', '2:max', '/m']);
  assert.deepStrictEqual(
    (await resizer.inspect('/dev/loop1', { mountPath: '/m/' })).mountPoint,
    '/m',
  );
});

it('a stop asked for before the grow starts: FSRESIZE_INTERRUPTED, nothing probed or run', async () => {
  const resizer = extNeedingCheck(0);
  const controller = new AbortController();
  controller.abort('SIGTERM');
  await expectRejection(
    resizer.grow('/dev/sdb', { signal: controller.signal }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_INTERRUPTED');
      assert.strictEqual(
        error.message,
        'stopped (SIGTERM) before growing /dev/sdb: nothing was changed',
      );
      return true;
    },
  );
  assert.deepStrictEqual(resizer.calls, []);
  assert.strictEqual((await resizer.grow('/dev/sdb')).action, 'grown', 'the lock was released');
});

it('a stop asked for while e2fsck runs: e2fsck finishes, resize2fs does not start, FSRESIZE_INTERRUPTED says so', async () => {
  const controller = new AbortController();
  const device = {
    majorMinor: '8:16',
    bytes: 256 * MiB,
    superblock: extSuperblock(64 * 256, 2, { state: 0 }),
  };
  const resizer = fakeResizer({
    devices: { '/dev/sdb': device },
    tool: (command) => {
      if (command === 'blkid') return { stdout: 'TYPE=ext4\n' };
      if (command === 'e2fsck') {
        controller.abort('SIGINT');
        return { exitCode: 1 };
      }
      return undefined;
    },
  });
  await expectRejection(
    resizer.grow('/dev/sdb', { signal: controller.signal }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_INTERRUPTED');
      assert.match(
        error.message,
        /^stopped \(SIGINT\) after e2fsck -f -p \/dev\/sdb had finished \(exit 1: errors corrected\), before resize2fs \/dev\/sdb: the filesystem was not grown \(the check's fixes are written\)$/,
      );
      assert.deepStrictEqual(error.details['precheck'], {
        command: ['e2fsck', '-f', '-p', '/dev/sdb'],
        exitCode: 1,
      });
      return true;
    },
  );
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid', 'e2fsck'],
  );
});

/** An unmounted ext4 on /dev/sdb whose blkid is `blkid` (the other tools succeed). */
function extWithBlkid(blkid: (args: readonly string[]) => never): ReturnType<typeof fakeResizer> {
  return fakeResizer({
    devices: {
      '/dev/sdb': { majorMinor: '8:16', bytes: 256 * MiB, superblock: extSuperblock(64 * 256, 2) },
    },
    tool: (command, args) => (command === 'blkid' ? blkid(args) : undefined),
  });
}

/** blkid ended by `signal`, as the runner reports a probe a signal killed. */
function probeKilledBy(signal: string, args: readonly string[]): FsResizeError {
  return new FsResizeError(
    'FSRESIZE_TOOL_FAILED',
    `blkid ${args.join(' ')} ended abnormally (${signal})`,
    {
      tool: { tool: 'blkid', args: [...args], exitCode: null, signal, stderr: '' },
    },
  );
}

it('a probe ended by the stop signal voe receives a moment later (the two events in the other order): FSRESIZE_INTERRUPTED, not a failure of blkid', async () => {
  const controller = new AbortController();
  const resizer = extWithBlkid((args) => {
    setTimeout(() => controller.abort('SIGINT'), 50);
    throw probeKilledBy('SIGINT', args);
  });
  await expectRejection(
    resizer.grow('/dev/sdb', { signal: controller.signal }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_INTERRUPTED');
      assert.match(
        error.message,
        /^stopped \(SIGINT\) while blkid .* ran, which the same signal ended .*; nothing was changed$/,
      );
      return true;
    },
  );
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid'],
  );
});

it("a probe ended by a signal voe does not receive (or another one than voe's stop): a failure of that probe, after a moment", async () => {
  const idle = new AbortController();
  const killed = extWithBlkid((args) => {
    throw probeKilledBy('SIGINT', args);
  });
  await expectRejection(
    killed.grow('/dev/sdb', { signal: idle.signal }),
    (error: unknown) =>
      isFsResizeError(error) &&
      error.code === 'FSRESIZE_TOOL_FAILED' &&
      error.tool?.signal === 'SIGINT',
  );
  const other = new AbortController();
  other.abort('SIGTERM');
  const stopped = extWithBlkid((args) => {
    throw probeKilledBy('SIGKILL', args);
  });
  // Stopped before the grow began: nothing probed at all.
  await expectRejection(
    stopped.grow('/dev/sdb', { signal: other.signal }),
    (error: unknown) => isFsResizeError(error) && error.code === 'FSRESIZE_INTERRUPTED',
  );
  const later = new AbortController();
  const ended = extWithBlkid((args) => {
    setTimeout(() => later.abort('SIGTERM'), 50);
    throw probeKilledBy('SIGKILL', args);
  });
  await expectRejection(
    ended.grow('/dev/sdb', { signal: later.signal }),
    (error: unknown) =>
      isFsResizeError(error) &&
      error.code === 'FSRESIZE_TOOL_FAILED' &&
      error.tool?.signal === 'SIGKILL',
  );
});

it('a stop asked for while the grow tool runs: the grow finishes and returns its result', async () => {
  const controller = new AbortController();
  const device = { majorMinor: '8:16', bytes: 256 * MiB, superblock: extSuperblock(64 * 256, 2) };
  const resizer = fakeResizer({
    devices: { '/dev/sdb': device },
    tool: (command) => {
      if (command === 'blkid') return { stdout: 'TYPE=ext4\n' };
      if (command === 'resize2fs') {
        controller.abort('SIGTERM');
        device.superblock = extSuperblock(256 * 256, 2);
      }
      return undefined;
    },
  });
  const result = await resizer.grow('/dev/sdb', { signal: controller.signal });
  assert.strictEqual(result.action, 'grown');
  assert.strictEqual(result.afterBytes, 256 * MiB);
});

it('the check and the grow tool run as critical commands (never stopped with voe); probes do not', async () => {
  const resizer = extNeedingCheck(0);
  await resizer.grow('/dev/sdb');
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid', 'e2fsck', 'resize2fs'],
  );
  assert.deepStrictEqual(
    resizer.runOptions.map((o) => o.critical !== undefined),
    [false, true, true],
  );
});

it("an offline grow looks for other users of the device again before refusing: one that lets go in time (udev's probe) is waited out, one that stays is refused with nothing run", async () => {
  const qemu = {
    openedBy: [{ pid: 77, command: 'qemu-system-x86', majorMinor: '8:16' }],
    unreadable: [],
    holders: [],
    disk: null,
  };
  const nobody = { openedBy: [], unreadable: [], holders: [], disk: null };
  const node = (users: (path: string, call: number) => typeof qemu) =>
    fakeResizer({
      devices: {
        '/dev/sdb': { majorMinor: '8:16', bytes: 128 * MiB, superblock: extSuperblock(16384, 2) },
      },
      tool: (command) =>
        command === 'blkid' ? { stdout: 'DEVNAME=/dev/sdb\nTYPE=ext4\n' } : undefined,
      users,
    });
  const brief = node((_path, call) => (call <= 2 ? qemu : nobody));
  const grown = await brief.grow('/dev/sdb', { dryRun: true });
  assert.match(grown.reason, /^dry run: would grow ext4 on \/dev\/sdb/);

  let looks = 0;
  const staying = node(() => {
    looks += 1;
    return qemu;
  });
  await expectRejection(
    staying.grow('/dev/sdb'),
    (error: unknown) =>
      isFsResizeError(error) &&
      error.code === 'FSRESIZE_DEVICE_IN_USE' &&
      /pid 77 \(qemu-system-x86\)/.test(error.message),
  );
  assert.strictEqual(looks, 5, 'looked five times');
  assert.deepStrictEqual(
    staying.calls.map((c) => c[0]),
    ['blkid'],
    'only the read-only probe ran',
  );
});

it("the look for other users of the device leaves the blkid it runs beside alone (reading a starting process's descriptors delays it)", async () => {
  const skipped: Array<readonly number[]> = [];
  const resizer = fakeResizer({
    devices: {
      '/dev/sdb': { majorMinor: '8:16', bytes: 128 * MiB, superblock: extSuperblock(16384, 2) },
    },
    tool: (command) =>
      command === 'blkid' ? { stdout: 'DEVNAME=/dev/sdb\nTYPE=ext4\n' } : undefined,
    users: (_path, _call, skipPids) => {
      skipped.push(skipPids);
      return { openedBy: [], unreadable: [], holders: [], disk: null };
    },
  });
  await resizer.inspect('/dev/sdb');
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid'],
  );
  assert.deepStrictEqual(skipped, [[1001]], 'the pid blkid was spawned with');
});

it('who else has the device open is looked for only when mountinfo lists no mount of it (a mounted filesystem belongs to the kernel)', async () => {
  let looks = 0;
  const mounted = fakeResizer({
    devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 128 * MiB } },
    tool: (command) =>
      command === 'blkid'
        ? { stdout: 'DEVNAME=/dev/sdb\nTYPE=xfs\n' }
        : command === 'xfs_io'
          ? { stdout: 'geom.bsize = 4096\ngeom.datablocks = 16384\n' }
          : undefined,
    mountinfo: '40 27 8:16 / /m rw - xfs /dev/sdb rw\n',
    users: () => {
      looks += 1;
      return { openedBy: [], unreadable: [], holders: [], disk: null };
    },
  });
  const inspection = await mounted.inspect('/dev/sdb');
  assert.strictEqual(inspection.mountPoint, '/m');
  assert.isNull(inspection.users);
  await mounted.grow('/dev/sdb');
  assert.ok(
    mounted.calls.some((c) => c[0] === 'xfs_growfs'),
    'grown online',
  );
  assert.strictEqual(looks, 0);
});

it("a mount of another device whose source still names this one (a name reused since it was mounted) is not a mount of it: an ext4 with a device number of its own is where that number says; a btrfs (anonymous number) only when the device holds btrfs and the kernel lists it among that mounted filesystem's devices", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-names-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'sdb'), '');
  await symlink('sdb', join(dir, 'by-id'));
  const device = join(dir, 'sdb');
  const byId = join(dir, 'by-id');
  const sized = (mountinfo: string) =>
    fakeResizer({
      devices: {
        [device]: { majorMinor: '8:16', bytes: 256 * MiB, superblock: extSuperblock(64 * 256, 2) },
        [byId]: { majorMinor: '8:16', bytes: 256 * MiB },
      },
      tool: (command) => (command === 'blkid' ? { stdout: 'TYPE=ext4\n' } : undefined),
      mountinfo,
      users: () => ({ openedBy: [], unreadable: [], holders: [], disk: null }),
    });
  for (const source of [device, byId]) {
    const stale = await sized(`40 27 8:32 / /old rw - ext4 ${source} rw\n`).inspect(device);
    assert.isNull(stale.mountPoint, `8:32 is another device, whatever ${source} names now`);
    assert.notStrictEqual(stale.users, null, 'not mounted here: other users were looked for');
    // An ext4 is never a btrfs's device, whatever that btrfs's source names now: taken for mounted,
    // it would be grown offline (resize2fs finds it unmounted) without looking for its users.
    const notBtrfs = await sized(`41 27 0:45 / /b rw - btrfs ${source} rw\n`).inspect(device);
    assert.isNull(notBtrfs.mountPoint, `an ext4 is not the btrfs mounted from ${source}`);
    assert.notStrictEqual(notBtrfs.users, null, 'other users were looked for');
  }
  const uuid = '4742ea63-c61d-4c16-a601-a968e178a6a0';
  const btrfs = (members: string[]) =>
    fakeResizer({
      devices: {
        [device]: { majorMinor: '8:16', bytes: 256 * MiB },
        [byId]: { majorMinor: '8:16', bytes: 256 * MiB },
      },
      tool: (command) =>
        command === 'blkid'
          ? { stdout: `TYPE=btrfs\nUUID=${uuid}\n` }
          : command === 'btrfs'
            ? {
                stdout:
                  'dev_item.devid\t\t1\nnum_devices\t\t1\ndev_item.total_bytes\t67108864\nsectorsize\t\t4096\n',
              }
            : undefined,
      mountinfo: `41 27 0:45 / /b rw - btrfs ${byId} rw\n`,
      btrfs: { [uuid]: members },
    });
  assert.strictEqual(
    (await btrfs(['8:16']).inspect(device)).mountPoint,
    '/b',
    'a member of the mounted btrfs, named by its source',
  );
  assert.isNull(
    (await btrfs(['8:32']).inspect(device)).mountPoint,
    "the kernel does not list it among that btrfs's devices",
  );
});

it('the device changed while voe checked it: renamed to another device, or shrunk, before the grow tool: FSRESIZE_DEVICE_CHANGED, the tool never runs; a filesystem the tool left smaller is never a no-op', async () => {
  const scenario = (
    during: (
      device: { majorMinor: string; bytes: number; superblock: Uint8Array },
      command: string,
    ) => void,
  ) => {
    const device = {
      majorMinor: '8:16',
      bytes: 256 * MiB,
      superblock: extSuperblock(64 * 256, 2, { mountTime: 1_700_000_100 }),
    };
    const resizer = fakeResizer({
      devices: { '/dev/sdb': device },
      tool: (command) => {
        during(device, command);
        if (command === 'blkid') return { stdout: 'TYPE=ext4\n' };
        if (command === 'resize2fs')
          device.superblock = extSuperblock(Math.floor(device.bytes / 4096), 2);
        return undefined;
      },
    });
    return resizer;
  };
  const renamed = scenario((device, command) => {
    if (command === 'e2fsck') device.majorMinor = '8:32';
  });
  await expectRejection(renamed.grow('/dev/sdb'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_DEVICE_CHANGED');
    assert.strictEqual(
      error.message,
      '/dev/sdb now leads to /dev/sdb (8:32), not to the device voe locked and inspected (/dev/sdb, 8:16): the name was given to another device meanwhile; resize2fs /dev/sdb was not run; e2fsck -f -p /dev/sdb ran first (exit 0: no errors) — check which device to grow and retry',
    );
    assert.deepStrictEqual(error.details?.precheck, {
      command: ['e2fsck', '-f', '-p', '/dev/sdb'],
      exitCode: 0,
    });
    return true;
  });
  assert.deepStrictEqual(
    renamed.calls.map((c) => c[0]),
    ['blkid', 'e2fsck'],
  );

  const shrunk = scenario((device, command) => {
    if (command === 'e2fsck') device.bytes = 48 * MiB;
  });
  await expectRejection(shrunk.grow('/dev/sdb'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_DEVICE_CHANGED');
    assert.match(
      error.message,
      /^\/dev\/sdb shrank from 256\.0 MiB to 48\.0 MiB since voe inspected it; resize2fs \/dev\/sdb was not run; e2fsck -f -p \/dev\/sdb ran first/,
    );
    return true;
  });
  assert.deepStrictEqual(
    shrunk.calls.map((c) => c[0]),
    ['blkid', 'e2fsck'],
  );

  // Shrunk while resize2fs ran (it fits the filesystem to the device): an error, never "stayed at".
  const shrunkDuring = scenario((device, command) => {
    if (command === 'resize2fs') device.bytes = 48 * MiB;
  });
  await expectRejection(shrunkDuring.grow('/dev/sdb'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_DEVICE_CHANGED');
    assert.match(
      error.message,
      /resize2fs \/dev\/sdb left ext4 on \/dev\/sdb smaller than before \(48\.0 MiB instead of 64\.0 MiB\): the device was made smaller while it ran/,
    );
    return true;
  });
});

it('an ext filesystem already at the size resize2fs can reach (the device rounded down to whole pages) is a no-op: neither e2fsck nor resize2fs runs', async () => {
  // 1 KiB blocks, 102400 of them (100 MiB), mounted since its last check; the device is 3 KiB past a 4 KiB page boundary.
  const node = (pageBytes: number) =>
    fakeResizer({
      pageBytes,
      devices: {
        '/dev/loop3': {
          majorMinor: '7:3',
          bytes: 100 * MiB + 3072,
          superblock: extSuperblock(102400, 0, { mountTime: 1_700_000_100 }),
        },
      },
      tool: (command) => (command === 'blkid' ? { stdout: 'TYPE=ext4\n' } : undefined),
    });
  const resizer = node(4096);
  const inspection = await resizer.inspect('/dev/loop3');
  assert.strictEqual(inspection.extPageBytes, 4096, 'the page size given is in the inspection');
  assert.isFalse(resizer.needsResize(inspection));
  for (const dryRun of [false, true]) {
    const result = await resizer.grow('/dev/loop3', { dryRun });
    assert.strictEqual(result.action, 'noop');
    assert.isNull(result.command);
    assert.isNull(result.precheck);
    assert.match(
      result.reason,
      /already has the size resize2fs can reach .*the last 3072 bytes of the device stay unused/,
    );
  }
  assert.deepStrictEqual(
    resizer.calls.map((c) => c[0]),
    ['blkid', 'blkid', 'blkid'],
    'only the probes ran',
  );
  // Where the page is no larger than the block, the three 1 KiB blocks are grown into.
  const pageOfOneBlock = node(1024);
  assert.isTrue(pageOfOneBlock.needsResize(await pageOfOneBlock.inspect('/dev/loop3')));
  assert.deepStrictEqual(
    pageOfOneBlock.calls.filter((c) => c[0] !== 'blkid'),
    [],
  );
  const planned = await pageOfOneBlock.grow('/dev/loop3', { dryRun: true });
  assert.deepStrictEqual(planned.command, ['resize2fs', '/dev/loop3']);
});

describe('an ext4 that resize2fs cannot grow here is refused, also in a dry run: neither e2fsck nor resize2fs runs', () => {
  const cases: Array<{
    title: string;
    bytes: number;
    superblock: ReturnType<typeof extSuperblock>;
    /** What the inspection says of the filesystem that makes it refused. */
    inspected: (inspection: Awaited<ReturnType<ReturnType<typeof fakeResizer>['inspect']>>) => void;
    code: string;
    message: RegExp;
  }> = [
    {
      // 1 GiB of 4 KiB blocks, mounted since its last check (an offline grow would check it first), on a 17 TiB device.
      title: 'without the 64bit feature on a device past 2^32 blocks: FSRESIZE_EXT_32BIT_LIMIT',
      bytes: 17 * 2 ** 40,
      superblock: extSuperblock(262144, 2, { mountTime: 1_700_000_100 }),
      inspected: (inspection) => assert.isFalse(inspection.ext64bit),
      code: 'FSRESIZE_EXT_32BIT_LIMIT',
      message:
        /without the 64bit feature it cannot address more than 17592186040320 bytes .*resize2fs -b \/dev\/sdb/,
    },
    {
      title: 'unmounted with bigalloc: FSRESIZE_EXT_BIGALLOC_OFFLINE',
      bytes: 256 * MiB,
      superblock: extSuperblock(64 * 256, 2, {
        mountTime: 1_700_000_100,
        roCompat: 0x200,
        bit64: true,
      }),
      inspected: (inspection) => assert.isTrue(inspection.extBigalloc),
      code: 'FSRESIZE_EXT_BIGALLOC_OFFLINE',
      message: /mount it and grow it online .* e2fsck -f \/dev\/sdb, then resize2fs -f \/dev\/sdb$/,
    },
  ];
  for (const { title, bytes, superblock, inspected, code, message } of cases) {
    it(title, async () => {
      const resizer = fakeResizer({
        devices: { '/dev/sdb': { majorMinor: '8:16', bytes, superblock } },
        tool: (command) => (command === 'blkid' ? { stdout: 'TYPE=ext4\n' } : undefined),
      });
      const inspection = await resizer.inspect('/dev/sdb');
      inspected(inspection);
      assert.isTrue(resizer.needsResize(inspection), 'the filesystem is smaller than its device');
      for (const dryRun of [true, false]) {
        await expectRejection(resizer.grow('/dev/sdb', { dryRun }), (error: unknown) => {
          assert.ok(isFsResizeError(error));
          assert.strictEqual(error.code, code);
          assert.match(error.message, message);
          return true;
        });
      }
      assert.deepStrictEqual(
        resizer.calls.map((c) => c[0]),
        ['blkid', 'blkid', 'blkid'],
        'only the probes ran',
      );
    });
  }
});

it('an online xfs grow takes the new size from what xfs_growfs printed when it grew from the size measured before; otherwise it measures again', async () => {
  const xfsGrow = (growfsFrom: number) => {
    let dataBlocks = 262144;
    return fakeResizer({
      devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 2048 * MiB } },
      mountinfo: '40 27 8:16 / /m rw - xfs /dev/sdb rw\n',
      tool: (command) => {
        if (command === 'blkid') return { stdout: 'TYPE=xfs\n' };
        if (command === 'xfs_io')
          return { stdout: `geom.bsize = 4096\ngeom.datablocks = ${dataBlocks}\n` };
        if (command === 'xfs_growfs') {
          dataBlocks = 524288;
          return {
            stdout: `data     =   bsize=4096   blocks=${growfsFrom}, imaxpct=25\ndata blocks changed from ${growfsFrom} to 524288\n`,
          };
        }
        return undefined;
      },
    });
  };
  const reported = xfsGrow(262144);
  const grown = await reported.grow('/dev/sdb');
  assert.strictEqual(grown.action, 'grown');
  assert.strictEqual(grown.afterBytes, 2048 * MiB);
  assert.deepStrictEqual(
    reported.calls.map((c) => c[0]),
    ['blkid', 'xfs_io', 'xfs_growfs'],
    'no xfs_io after the grow',
  );
  // xfs_growfs grew from another size than voe measured (something changed it in between): measured again.
  const changed = xfsGrow(262400);
  assert.strictEqual((await changed.grow('/dev/sdb')).afterBytes, 2048 * MiB);
  assert.deepStrictEqual(
    changed.calls.map((c) => c[0]),
    ['blkid', 'xfs_io', 'xfs_growfs', 'xfs_io'],
  );
});

it('what a grow did, and a device that shrank before the tool, give the exact bytes when the sizes read the same at one decimal', async () => {
  // An xfs of 1 GiB mounted at /m, on a device 1 MiB larger: xfs_growfs adds that 1 MiB.
  let dataBlocks = 262144;
  const xfs = fakeResizer({
    devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 1025 * MiB } },
    mountinfo: '40 27 8:16 / /m rw - xfs /dev/sdb rw\n',
    tool: (command) => {
      if (command === 'blkid') return { stdout: 'TYPE=xfs\n' };
      if (command === 'xfs_io')
        return { stdout: `geom.bsize = 4096\ngeom.datablocks = ${dataBlocks}\n` };
      if (command === 'xfs_growfs') dataBlocks = 262400;
      return undefined;
    },
  });
  const grown = await xfs.grow('/dev/sdb');
  assert.strictEqual(grown.action, 'grown');
  assert.strictEqual(
    grown.reason,
    'grew xfs on /dev/sdb from 1.0 GiB (1073741824 bytes) to 1.0 GiB (1074790400 bytes) online (mounted at /m)',
  );
  // An ext4 whose device loses 512 bytes during its check.
  const device = {
    majorMinor: '8:16',
    bytes: 1025 * MiB,
    superblock: extSuperblock(262144, 2, { mountTime: 1_700_000_100 }),
  };
  const ext = fakeResizer({
    devices: { '/dev/sdb': device },
    tool: (command) => {
      if (command === 'e2fsck') device.bytes -= 512;
      return command === 'blkid' ? { stdout: 'TYPE=ext4\n' } : undefined;
    },
  });
  await expectRejection(ext.grow('/dev/sdb'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_DEVICE_CHANGED');
    assert.match(
      error.message,
      /^\/dev\/sdb shrank from 1\.0 GiB \(1074790400 bytes\) to 1\.0 GiB \(1074789888 bytes\) since voe inspected it; /,
    );
    return true;
  });
});
