/**
 * An unmounted ext filesystem is grown offline, by writing to the device: never while another
 * program has the device open (a VM's disk whose guest has it mounted looks exactly like this from
 * the node). e2fsck's and resize2fs's own guard, an exclusive open, only finds mounts and other
 * exclusive openers, and QEMU opens disks without O_EXCL.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  createSystemBlockDevices,
  createExecFileRunner,
  isFsResizeError,
  type FsResizer,
} from '../../../src/fsresize/index.js';
import { findDeviceOpeners } from '../../../src/fsresize/devices/find-device-openers.js';
import { majorMinorOf } from '../../../src/fsresize/devices/major-minor-of.js';
import { holdDeviceElsewhere } from '../../support/fsresize/hold-device-elsewhere.js';
import { MiB, readChecksums, sh } from '../../support/fsresize/loop-device.js';
import { readableModuleCopy } from '../../support/readable-module-copy.js';
import {
  dumpe2fsBytes,
  grownOnceFree,
  mountedXfs,
  usedExt4,
  xfsBytes,
} from '../../support/fsresize/fixtures.js';
import { UNREADABLE_HERE } from '../../support/unreadable-here.js';
import { IGNORE_UNREADABLE_PROCESSES_ENV } from '../../../src/cli/ignore-unreadable-processes.js';

const execFileAsync = promisify(execFile);

async function refusedInUse(
  resizer: FsResizer,
  device: string,
  pid: number,
  dryRun = false,
): Promise<void> {
  await expectRejection(resizer.grow(device, { dryRun }), (error: unknown) => {
    assert.ok(isFsResizeError(error), String(error));
    assert.strictEqual(error.code, 'FSRESIZE_DEVICE_IN_USE', error.message);
    assert.match(
      error.message,
      new RegExp(
        `^ext4 on ${device} is not mounted here, but pid ${pid} \\(sleep\\) has the device open: growing it offline while another program uses it \\(e\\.g\\. a VM whose guest has it mounted\\) would corrupt it; nothing was changed`,
      ),
    );
    return true;
  });
}

for (const ownMountNamespace of [false, true]) {
  it(`ext4 not mounted but open in another process${ownMountNamespace ? ' through its own device node in a private mount namespace' : ''}: refused FSRESIZE_DEVICE_IN_USE, nothing runs, nothing changes; grown once that process is gone`, async () => {
    const { scratch, resizer, calls, loop, mnt, sums } = await usedExt4();
    const holder = await holdDeviceElsewhere(loop.device, await scratch.directory('holder'), {
      ownMountNamespace,
    });
    await refusedInUse(resizer, loop.device, holder.pid, true);
    await refusedInUse(resizer, loop.device, holder.pid);
    assert.deepStrictEqual(
      calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'),
      [],
      'neither e2fsck nor resize2fs ran',
    );
    assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
    const inspection = await resizer.inspect(loop.device);
    assert.deepStrictEqual(inspection.users, {
      openedBy: [{ pid: holder.pid, command: 'sleep', majorMinor: inspection.majorMinor }],
      unreadable: UNREADABLE_HERE,
      holders: [],
      disk: null,
      backing: [
        {
          loop: loop.device.replace('/dev/', ''),
          path: loop.backingFile,
          kind: 'file',
          sharedWith: [],
          busy: false,
        },
      ],
    });

    await holder.stop();
    await grownOnceFree(resizer, calls, loop, mnt, sums);
  });
}

it('a tmpfs mounted with the device path as its source is no mount of the device: an ext4 open elsewhere is still refused FSRESIZE_DEVICE_IN_USE', async () => {
  const { scratch, resizer, calls, loop } = await usedExt4();
  const holder = await holdDeviceElsewhere(loop.device, await scratch.directory('holder'));
  const decoy = await scratch.directory('decoy');
  await sh('mount', ['-t', 'tmpfs', loop.device, decoy]);
  assert.isNull((await resizer.inspect(loop.device)).mountPoint);
  await refusedInUse(resizer, loop.device, holder.pid);
  assert.deepStrictEqual(
    calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'),
    [],
    'neither e2fsck nor resize2fs ran',
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
});

it('a mounted filesystem is grown online whoever else has the device open (the kernel owns it; /proc is not walked)', async () => {
  const { scratch, resizer, loop, mnt, sums } = await mountedXfs({ growTo: 640 * MiB });
  await holdDeviceElsewhere(loop.device, await scratch.directory('holder'));
  assert.isNull((await resizer.inspect(loop.device)).users);
  const result = await resizer.grow(loop.device);
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.strictEqual(await xfsBytes(mnt), 640 * MiB);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('findDeviceOpeners: finds a process elsewhere by device number; leaves out this process and the processes it started', async () => {
  const { scratch, loop } = await usedExt4();
  const majorMinor = majorMinorOf((await stat(loop.device)).rdev);
  assert.deepStrictEqual((await findDeviceOpeners([majorMinor])).openedBy, []);

  const child = spawn(
    'sh',
    ['-c', 'exec 3<>"$1" && echo open && exec sleep 600', 'sh', loop.device],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  onCleanup(() => {
    child.kill('SIGKILL');
  });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  assert.deepStrictEqual(
    (await findDeviceOpeners([majorMinor])).openedBy,
    [],
    'a child of this process (as a blkid the core started) is not another user',
  );
  assert.deepStrictEqual(
    (await findDeviceOpeners([majorMinor], { selfPid: 1 })).openedBy,
    [{ pid: child.pid!, command: 'sleep', majorMinor }],
    'seen from elsewhere, it is',
  );
  assert.deepStrictEqual(
    (await findDeviceOpeners([majorMinor], { selfPid: 1, skipPids: new Set([child.pid!]) }))
      .openedBy,
    [],
    'a pid to skip is not looked at',
  );

  const holder = await holdDeviceElsewhere(loop.device, await scratch.directory('holder'));
  assert.deepStrictEqual((await findDeviceOpeners([majorMinor])).openedBy, [
    { pid: holder.pid, command: 'sleep', majorMinor },
  ]);
  assert.deepStrictEqual(
    (await findDeviceOpeners(['7:250', majorMinor])).openedBy,
    [{ pid: holder.pid, command: 'sleep', majorMinor }],
    'any of several devices',
  );
});

it('findDeviceOpeners: a process whose descriptors the kernel will not show is named as unreadable (it may use the device), and the look goes on', async () => {
  // A look without the right to read a process's descriptors (root lacking CAP_SYS_PTRACE, or a
  // capability that process has; here an unprivileged user, and descriptor directories it may
  // list but not enter, or not even list): "could not look" is never taken as "nobody".
  const { scratch, loop } = await usedExt4();
  const majorMinor = majorMinorOf((await stat(loop.device)).rdev);
  const proc = await scratch.directory('proc');
  for (const directory of [dirname(proc), proc]) await chmod(directory, 0o755); // for the unprivileged look
  for (const [pid, mode] of [
    [10, 0o444],
    [20, 0o755],
    [30, 0o000],
    [40, 0o000],
  ] as const) {
    await mkdir(join(proc, `${pid}/fd`), { recursive: true });
    for (let fd = 0; fd < 5; fd += 1) await symlink(loop.device, join(proc, `${pid}/fd/${fd}`));
    // 40 is a child of the look's own process (as a blkid it started): never counted.
    await writeFile(
      join(proc, `${pid}/stat`),
      `${pid} (holder ${pid}) S ${pid === 40 ? 1 : 2} ${pid}\n`,
    );
    await writeFile(join(proc, `${pid}/comm`), `holder-${pid}\n`);
    await chmod(join(proc, `${pid}/fd`), mode);
  }
  // That user may not read the checkout (a clone in a mode-0700 home): it runs a copy of the core.
  const core = await readableModuleCopy(
    new URL('../../../src/fsresize/devices/find-device-openers.js', import.meta.url),
  );
  const script = `const { findDeviceOpeners } = await import(${JSON.stringify(core.url)});
    process.stdout.write(JSON.stringify(await findDeviceOpeners([${JSON.stringify(majorMinor)}], { procRoot: ${JSON.stringify(proc)}, selfPid: 1 })));`;
  const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {
    uid: 65534,
    gid: 65534,
    cwd: core.directory,
  });
  assert.deepStrictEqual(JSON.parse(stdout), {
    openedBy: [{ pid: 20, command: 'holder-20', majorMinor }],
    unreadable: [
      { pid: 10, command: 'holder-10' },
      { pid: 30, command: 'holder-30' },
    ],
  });
});

it('voe without CAP_SYS_PTRACE may not read which files a process of another user has open: an offline grow is refused FSRESIZE_PERMISSION_DENIED naming it; --ignore-unreadable-processes overrides', async () => {
  const { loop, lockDirectory } = await usedExt4();
  // A program that opened the device as root, then became another user (as QEMU runs as its own user).
  const holder = spawn(
    'python3',
    [
      '-c',
      'import os, sys, time\nos.open(sys.argv[1], os.O_RDONLY)\nos.setgid(65534)\nos.setuid(65534)\nprint(os.getpid(), flush=True)\ntime.sleep(600)',
      loop.device,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  onCleanup(() => {
    holder.kill('SIGKILL');
  });
  const holderPid = await new Promise<number>((resolve) =>
    holder.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  const env = { ...process.env };
  delete env[IGNORE_UNREADABLE_PROCESSES_ENV];
  const main = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
  const withoutPtrace = (more: string[]) =>
    execFileAsync(
      'setpriv',
      [
        '--bounding-set=-sys_ptrace',
        '--inh-caps=-sys_ptrace',
        '--',
        process.execPath,
        main,
        'fsresize',
        'grow',
        '--device',
        loop.device,
        '--lock-dir',
        lockDirectory,
        '--json',
        ...more,
      ],
      { env },
    ).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
  const refused = await withoutPtrace([]);
  assert.strictEqual(refused.code, 2, refused.stdout);
  const { error } = JSON.parse(refused.stdout) as {
    error: { code: string; message: string; details: { unreadable: Array<{ pid: number }> } };
  };
  assert.strictEqual(error.code, 'FSRESIZE_PERMISSION_DENIED', error.message);
  assert.match(
    error.message,
    /^ext4 on \/dev\/loop\d+ is not mounted here, and the kernel would not show voe which files pid \d+ /,
  );
  assert.ok(
    error.details.unreadable.some((p) => p.pid === holderPid),
    JSON.stringify(error.details),
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB, 'nothing changed');
  const overridden = await withoutPtrace(['--ignore-unreadable-processes']);
  assert.strictEqual(overridden.code, 0, overridden.stdout);
  assert.strictEqual((JSON.parse(overridden.stdout) as { action: string }).action, 'grown');
  assert.strictEqual(await dumpe2fsBytes(loop.device), 256 * MiB);
});

it("voe in a PID namespace of its own (a container without hostPID) cannot see the node's processes: an offline grow is refused FSRESIZE_PERMISSION_DENIED saying so; --ignore-unreadable-processes overrides", async () => {
  const { loop, lockDirectory, mnt, sums } = await usedExt4();
  const env = { ...process.env };
  delete env[IGNORE_UNREADABLE_PROCESSES_ENV];
  const main = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
  // Its own PID namespace and the /proc of that namespace, where it is pid 1's child and sees nothing else.
  const inOwnPidNamespace = (more: string[]) =>
    execFileAsync(
      'unshare',
      [
        '--pid',
        '--fork',
        '--mount-proc',
        '--',
        process.execPath,
        main,
        'fsresize',
        'grow',
        '--device',
        loop.device,
        '--lock-dir',
        lockDirectory,
        '--json',
        ...more,
      ],
      { env },
    ).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
  const refused = await inOwnPidNamespace([]);
  assert.strictEqual(refused.code, 2, refused.stdout);
  const { error } = JSON.parse(refused.stdout) as { error: { code: string; message: string } };
  assert.strictEqual(error.code, 'FSRESIZE_PERMISSION_DENIED', error.message);
  assert.match(
    error.message,
    /^ext4 on \/dev\/loop\d+ is not mounted here, and voe cannot see the node's other processes: it runs in a PID namespace of its own/,
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB, 'nothing changed');
  const overridden = await inOwnPidNamespace(['--ignore-unreadable-processes']);
  assert.strictEqual(overridden.code, 0, overridden.stdout);
  assert.strictEqual((JSON.parse(overridden.stdout) as { action: string }).action, 'grown');
  assert.strictEqual(await dumpe2fsBytes(loop.device), 256 * MiB);
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('users: the kernel devices stacked on a device (sysfs holders) are named', async () => {
  const sysfs = await mkdtemp(join(tmpdir(), 'voe-sysfs-'));
  onCleanup(() => rm(sysfs, { recursive: true, force: true }));
  await mkdir(join(sysfs, 'dev/block/7:99/holders/dm-3'), { recursive: true });
  await mkdir(join(sysfs, 'dev/block/7:99/holders/dm-1'), { recursive: true });
  const devices = createSystemBlockDevices({ runner: createExecFileRunner(), sysfsRoot: sysfs });
  assert.deepStrictEqual(
    await devices.users({ path: '/dev/x', realPath: '/dev/x', majorMinor: '7:99' }),
    { openedBy: [], unreadable: UNREADABLE_HERE, holders: ['dm-1', 'dm-3'], disk: null },
  );
  assert.deepStrictEqual(
    (await devices.users({ path: '/dev/y', realPath: '/dev/y', majorMinor: '7:98' })).holders,
    [],
    'no holders directory: none',
  );
});

it("a partition: a program that has its whole disk open (QEMU with a VM's partitioned disk) uses it too; so do devices stacked on the whole disk", async () => {
  // Partition scanning of loop devices does not work on every machine: a sysfs tree describes
  // partition 259:77 of a real loop device, which a process elsewhere holds open.
  const { scratch, loop } = await usedExt4();
  const disk = majorMinorOf((await stat(loop.device)).rdev);
  const sysfs = await mkdtemp(join(tmpdir(), 'voe-sysfs-'));
  onCleanup(() => rm(sysfs, { recursive: true, force: true }));
  await mkdir(join(sysfs, 'block/vdz/vdz1'), { recursive: true });
  await mkdir(join(sysfs, 'block/vdz/holders/dm-4'), { recursive: true });
  await writeFile(join(sysfs, 'block/vdz/dev'), `${disk}\n`);
  await writeFile(join(sysfs, 'block/vdz/vdz1/partition'), '1\n');
  await mkdir(join(sysfs, 'dev/block'), { recursive: true });
  await symlink('../../block/vdz/vdz1', join(sysfs, 'dev/block/259:77'));
  await symlink('../../block/vdz', join(sysfs, `dev/block/${disk}`));
  const holder = await holdDeviceElsewhere(loop.device, await scratch.directory('holder'));
  const devices = createSystemBlockDevices({ runner: createExecFileRunner(), sysfsRoot: sysfs });
  assert.deepStrictEqual(
    await devices.users({ path: '/dev/vdz1', realPath: '/dev/vdz1', majorMinor: '259:77' }),
    {
      openedBy: [{ pid: holder.pid, command: 'sleep', majorMinor: disk }],
      unreadable: UNREADABLE_HERE,
      holders: ['dm-4'],
      disk,
    },
  );
});

it('a loop device set up on top of the device (losetup on a block device) uses it: refused, although the loop driver holds it neither as a holder nor exclusively', async () => {
  const { scratch, resizer, calls, loop } = await usedExt4();
  const upper = await scratch.attachFile(loop.device);
  const name = upper.device.replace('/dev/', '');
  await expectRejection(resizer.grow(loop.device), (error: unknown) => {
    assert.ok(isFsResizeError(error), String(error));
    assert.strictEqual(error.code, 'FSRESIZE_DEVICE_IN_USE', error.message);
    assert.match(
      error.message,
      new RegExp(
        `^ext4 on ${loop.device} is not mounted here, but ${name} is stacked on the device \\(device-mapper, RAID, loop\\)`,
      ),
    );
    return true;
  });
  assert.deepStrictEqual(
    calls.map((c) => c[0]).filter((tool) => tool !== 'blkid'),
    [],
    'neither e2fsck nor resize2fs ran',
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
});
