/**
 * An unmounted ext filesystem is grown offline, by writing to the device: never while another
 * program has the device open (a VM's disk whose guest has it mounted looks exactly like this from
 * the node). e2fsck's and resize2fs's own guard, an exclusive open, only finds mounts and other
 * exclusive openers, and QEMU opens disks without O_EXCL.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createSystemBlockDevices, createExecFileRunner, findDeviceOpeners, isFsResizeError, majorMinorOf, type FsResizer } from '../../../src/fsresize/index.js';
import { holdDeviceElsewhere } from '../../support/hold-device-elsewhere.js';
import { MiB, readChecksums } from '../../support/loop-device.js';
import { growCalls } from '../../support/recording-runner.js';
import { dumpe2fsBytes, mountedXfs, usedExt4, xfsBytes } from './fixtures.js';

async function refusedInUse(resizer: FsResizer, device: string, pid: number, dryRun = false): Promise<void> {
  await assert.rejects(resizer.grow(device, { dryRun }), (error: unknown) => {
    assert.ok(isFsResizeError(error), String(error));
    assert.equal(error.code, 'FSRESIZE_DEVICE_IN_USE', error.message);
    assert.match(error.message, new RegExp(`^ext4 on ${device} is not mounted here, but pid ${pid} \\(sleep\\) has the device open: growing it offline while another program uses it \\(e\\.g\\. a VM whose guest has it mounted\\) would corrupt it; nothing was changed`));
    return true;
  });
}

for (const ownMountNamespace of [false, true]) {
  test(`ext4 not mounted but open in another process${ownMountNamespace ? ' through its own device node in a private mount namespace' : ''}: refused FSRESIZE_DEVICE_IN_USE, nothing runs, nothing changes; grown once that process is gone`, async (t) => {
    const { scratch, resizer, calls, loop, mnt, sums } = await usedExt4(t);
    const holder = await holdDeviceElsewhere(t, loop.device, await scratch.directory('holder'), { ownMountNamespace });
    await refusedInUse(resizer, loop.device, holder.pid, true);
    await refusedInUse(resizer, loop.device, holder.pid);
    assert.deepEqual(calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'), [], 'neither e2fsck nor resize2fs ran');
    assert.equal(await dumpe2fsBytes(loop.device), 64 * MiB);
    const inspection = await resizer.inspect(loop.device);
    assert.deepEqual(inspection.users, { openedBy: [{ pid: holder.pid, command: 'sleep' }], holders: [] });

    await holder.stop();
    const result = await resizer.grow(loop.device);
    assert.equal(result.action, 'grown', result.reason);
    assert.equal(await dumpe2fsBytes(loop.device), 256 * MiB);
    assert.equal(growCalls(calls), 1);
    await loop.mount(mnt);
    assert.deepEqual(await readChecksums(mnt, sums.keys()), sums);
  });
}

test('a mounted filesystem is grown online whoever else has the device open (the kernel owns it; /proc is not walked)', async (t) => {
  const { scratch, resizer, loop, mnt, sums } = await mountedXfs(t, { growTo: 640 * MiB });
  await holdDeviceElsewhere(t, loop.device, await scratch.directory('holder'));
  assert.equal((await resizer.inspect(loop.device)).users, null);
  const result = await resizer.grow(loop.device);
  assert.equal(result.action, 'grown', result.reason);
  assert.equal(await xfsBytes(mnt), 640 * MiB);
  assert.deepEqual(await readChecksums(mnt, sums.keys()), sums);
});

test('findDeviceOpeners: finds a process elsewhere by device number; leaves out this process and the processes it started', async (t) => {
  const { scratch, loop } = await usedExt4(t);
  const majorMinor = majorMinorOf((await stat(loop.device)).rdev);
  assert.deepEqual(await findDeviceOpeners(majorMinor), []);

  const child = spawn('sh', ['-c', 'exec 3<>"$1" && echo open && exec sleep 600', 'sh', loop.device], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => { child.kill('SIGKILL'); });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  assert.deepEqual(await findDeviceOpeners(majorMinor), [], 'a child of this process (as a blkid the core started) is not another user');
  assert.deepEqual(await findDeviceOpeners(majorMinor, { selfPid: 1 }), [{ pid: child.pid, command: 'sleep' }], 'seen from elsewhere, it is');

  const holder = await holdDeviceElsewhere(t, loop.device, await scratch.directory('holder'));
  assert.deepEqual(await findDeviceOpeners(majorMinor), [{ pid: holder.pid, command: 'sleep' }]);
});

test('users: the kernel devices stacked on a device (sysfs holders) are named', async (t) => {
  const sysfs = await mkdtemp(join(tmpdir(), 'voe-sysfs-'));
  t.after(() => rm(sysfs, { recursive: true, force: true }));
  await mkdir(join(sysfs, 'dev/block/7:99/holders/dm-3'), { recursive: true });
  await mkdir(join(sysfs, 'dev/block/7:99/holders/dm-1'), { recursive: true });
  const devices = createSystemBlockDevices({ runner: createExecFileRunner(), sysfsRoot: sysfs });
  assert.deepEqual(await devices.users({ path: '/dev/x', realPath: '/dev/x', majorMinor: '7:99' }), { openedBy: [], holders: ['dm-1', 'dm-3'] });
  assert.deepEqual((await devices.users({ path: '/dev/y', realPath: '/dev/y', majorMinor: '7:98' })).holders, [], 'no holders directory: none');
});
