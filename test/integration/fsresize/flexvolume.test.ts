import { it } from 'mocha';
import { assert } from 'chai';
import { execFile } from 'node:child_process';
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deviceNodeOf } from '../../../src/fsresize/index.js';
import { majorMinorOf } from '../../../src/fsresize/devices/major-minor-of.js';
import { systemPageSize } from '../../../src/fsresize/devices/system-page-size.js';
import {
  DROP_OTHER_LOOP_MOUNTS,
  MiB,
  readChecksums,
  sh,
} from '../../support/fsresize/loop-device.js';
import {
  btrfsBytes,
  dumpe2fsBytes,
  mountedXfs,
  setup,
  usedExt4,
  xfsBytes,
} from '../../support/fsresize/fixtures.js';
import { envIgnoringUnreadableHere } from '../../support/unreadable-here.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const OPTIONS = JSON.stringify({
  'kubernetes.io/fsType': 'xfs',
  'kubernetes.io/readwrite': 'rw',
  'kubernetes.io/pvOrVolumeName': 'pv-1',
});

/** Calls the driver as kubelet does: one process, stdout and stderr read together. */
function driver(
  args: string[],
  env: NodeJS.ProcessEnv = envIgnoringUnreadableHere(),
): Promise<{ code: number; combined: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, 'flexvolume', ...args],
      { encoding: 'utf8', env },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          combined: stdout + stderr,
          stderr,
        });
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end();
  });
}

it('init answers Success with attach false and requiresFSResize true', async () => {
  const { code, combined, stderr } = await driver(['init']);
  assert.strictEqual(code, 0);
  assert.strictEqual(stderr, '');
  assert.deepStrictEqual(JSON.parse(combined), {
    status: 'Success',
    capabilities: { attach: false, requiresFSResize: true },
  });
});

it('expandvolume <json> <device mount path> <new> <old> answers the new size', async () => {
  const { code, combined } = await driver([
    'expandvolume',
    OPTIONS,
    '/var/lib/kubelet/plugins/kubernetes.io/flexvolume/x/mounts/pv-1',
    '2147483648',
    '1073741824',
  ]);
  assert.strictEqual(code, 0);
  assert.deepStrictEqual(JSON.parse(combined), { status: 'Success', volumeNewSize: 2147483648 });
});

it('expandvolume with a malformed size is a Failure with a non-zero exit', async () => {
  const { code, combined } = await driver(['expandvolume', OPTIONS, '/mnt', '2Gi', '1073741824']);
  assert.strictEqual(code, 1);
  const answer = JSON.parse(combined);
  assert.strictEqual(answer.status, 'Failure');
  assert.match(answer.message, /new size must be a size in bytes/);
});

it('any other operation answers Not supported with exit 1', async () => {
  for (const op of ['attach', 'mount', 'unmount', 'getvolumename', 'isattached', 'waitforattach']) {
    const { code, combined, stderr } = await driver([op, OPTIONS]);
    assert.deepStrictEqual(JSON.parse(combined), { status: 'Not supported' }, op);
    assert.strictEqual(code, 1, op);
    assert.strictEqual(stderr, '', op);
  }
});

it('expandfs <json> <device> <mount> <new> <old> grows a mounted xfs through the core', async () => {
  const { loop, mnt, sums } = await mountedXfs({
    growTo: 768 * MiB,
    files: 2,
    mountName: 'mounts-pv-1',
  });
  const { code, combined, stderr } = await driver([
    'expandfs',
    OPTIONS,
    loop.device,
    mnt,
    String(768 * MiB),
    String(320 * MiB),
  ]);
  assert.strictEqual(stderr, '');
  assert.strictEqual(code, 0, combined);
  const answer = JSON.parse(combined);
  assert.strictEqual(answer.status, 'Success');
  assert.match(answer.message, /^grew xfs/);
  assert.strictEqual(await xfsBytes(mnt), 768 * MiB);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
  const again = await driver([
    'expandfs',
    OPTIONS,
    loop.device,
    mnt,
    String(768 * MiB),
    String(320 * MiB),
  ]);
  assert.strictEqual(again.code, 0);
  assert.match(JSON.parse(again.combined).message, /already fills the device/);
});

it('expandfs with an empty device path finds the device from the mount path (btrfs)', async () => {
  const { scratch } = await setup();
  const loop = await scratch.attach(256 * MiB);
  await sh('mkfs.btrfs', ['-q', loop.device]);
  const mnt = await scratch.directory('pod-volume');
  await loop.mount(mnt);
  await loop.growBacking(384 * MiB);
  const { code, combined } = await driver([
    'expandfs',
    OPTIONS,
    '',
    mnt,
    String(384 * MiB),
    String(256 * MiB),
  ]);
  assert.strictEqual(code, 0, combined);
  assert.strictEqual(JSON.parse(combined).status, 'Success');
  assert.strictEqual(await btrfsBytes(mnt), 384 * MiB);
  // The mount path with a trailing slash names the same mount point (as with voe fsresize grow --mount).
  await loop.growBacking(448 * MiB);
  const slash = await driver([
    'expandfs',
    OPTIONS,
    '',
    `${mnt}/`,
    String(448 * MiB),
    String(384 * MiB),
  ]);
  assert.strictEqual(slash.code, 0, slash.combined);
  assert.match(JSON.parse(slash.combined).message, /^grew btrfs/);
  assert.strictEqual(await btrfsBytes(mnt), 448 * MiB);
});

it('expandfs with an empty device path finds the device by its number when it was mounted through a name outside /dev (xfs)', async () => {
  const { scratch } = await setup();
  const loop = await scratch.attach(320 * MiB);
  await sh('mkfs.xfs', ['-q', loop.device]);
  const majorMinor = majorMinorOf((await stat(loop.device)).rdev);
  assert.strictEqual(await deviceNodeOf(majorMinor), loop.device);
  const node = join(await scratch.directory('nodes'), 'vol');
  await sh('mknod', [node, 'b', ...majorMinor.split(':')]);
  const mnt = await scratch.directory('pod-volume');
  await scratch.mountFrom(node, mnt);
  const entry = (await readFile('/proc/self/mountinfo', 'utf8'))
    .split('\n')
    .find((line) => line.split(' ')[4] === mnt);
  assert.match(
    entry ?? '',
    new RegExp(` - xfs ${node} `),
    'mountinfo names the node the filesystem was mounted through',
  );
  await loop.growBacking(512 * MiB);
  const first = await driver(['expandfs', OPTIONS, '', mnt, String(512 * MiB), String(320 * MiB)]);
  assert.strictEqual(first.code, 0, first.combined);
  assert.match(JSON.parse(first.combined).message, new RegExp(`^grew xfs on ${loop.device} `));
  assert.strictEqual(await xfsBytes(mnt), 512 * MiB);
});

it('expandfs with an empty device path at a tmpfs whose source names a device answers Failure: no block device is mounted there, nothing changes', async () => {
  const { scratch } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(128 * MiB);
  const pod = await scratch.directory('pod');
  await sh('mount', ['-t', 'tmpfs', loop.device, pod]); // unmounted by the scratch's cleanup
  const answer = await driver([
    'expandfs',
    JSON.stringify({ 'kubernetes.io/fsType': 'ext4' }),
    '',
    pod,
    String(128 * MiB),
    String(64 * MiB),
  ]);
  assert.strictEqual(answer.code, 1, answer.combined);
  assert.deepStrictEqual(JSON.parse(answer.combined), {
    status: 'Failure',
    message: `FLEXVOLUME_NO_DEVICE: expandfs: no block device is mounted at ${pod} (it shows tmpfs from "${loop.device}")`,
  });
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
});

it('deviceNodeOf finds nothing for a number with no block device node', async () => {
  const { scratch } = await setup();
  const sysfs = await scratch.directory('sys');
  assert.isNull(await deviceNodeOf('4095:1048575'));
  assert.isNull(await deviceNodeOf('../../etc'));
  // A DEVNAME that leads to no block device of that number is not taken.
  await mkdir(join(sysfs, 'dev/block/7:250'), { recursive: true });
  await writeFile(join(sysfs, 'dev/block/7:250/uevent'), 'MAJOR=7\nMINOR=250\nDEVNAME=null\n');
  assert.isNull(await deviceNodeOf('7:250', { sysfsRoot: sysfs }));
});

it('three expandfs calls at once on an unmounted ext4: one grows it, the others wait for the device lock and find it grown', async () => {
  // The unit tests check that a waiting call runs nothing on the device (a probe of it would be a
  // program holding it open while the grower looks for other users); here, the whole driver on a real device.
  const { loop, mnt, sums } = await usedExt4({ files: 2, growTo: 512 * MiB });
  const calls = await Promise.all(
    [1, 2, 3].map(() =>
      driver(['expandfs', OPTIONS, loop.device, '', String(512 * MiB), String(64 * MiB)]),
    ),
  );
  for (const call of calls) assert.strictEqual(call.code, 0, call.combined);
  const messages = calls.map((call) => JSON.parse(call.combined).message as string);
  // resize2fs demands a check first when the filesystem was mounted after its last check, which
  // depends on whether mkfs and the mount that wrote the files fell in the same second.
  assert.strictEqual(
    messages.filter((m) =>
      /^(checked \(e2fsck -f -p \S+, exit 0: no errors\) and )?grew ext4 .* offline$/.test(m),
    ).length,
    1,
    messages.join('\n'),
  );
  assert.strictEqual(
    messages.filter((m) => /already fills the device/.test(m)).length,
    2,
    messages.join('\n'),
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 512 * MiB);
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('expandfs on a filesystem mounted read-only (a writable device) answers a FSRESIZE_MOUNT_READ_ONLY Failure, so kubelet retries instead of recording the resize as done', async () => {
  const { loop, mnt, sums } = await usedExt4({
    files: 2,
    growTo: 128 * MiB,
    beforeGrowing: (l, dir) => l.mount(dir, ['ro']),
  });
  const answer = await driver([
    'expandfs',
    OPTIONS,
    loop.device,
    mnt,
    String(128 * MiB),
    String(64 * MiB),
  ]);
  assert.strictEqual(answer.code, 1, answer.combined);
  assert.strictEqual(answer.stderr, '');
  assert.match(
    JSON.parse(answer.combined).message,
    new RegExp(
      `^FSRESIZE_MOUNT_READ_ONLY: ext4 on ${loop.device} is mounted read-only at ${mnt} although the device is writable`,
    ),
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('expandfs on a read-only device answers a FSRESIZE_DEVICE_READ_ONLY Failure (a Success would record a filesystem that did not grow as grown)', async () => {
  const { scratch } = await setup();
  const writable = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', writable.device]);
  const readOnly = await scratch.attachFile(writable.backingFile, { readOnly: true });
  await writable.detach();
  const mnt = await scratch.directory('mnt');
  await readOnly.mount(mnt, ['ro', 'noload']);
  await readOnly.growBacking(128 * MiB);
  const answer = await driver(['expandfs', OPTIONS, '', mnt, String(128 * MiB), String(64 * MiB)]);
  assert.strictEqual(answer.code, 1, answer.combined);
  assert.match(
    JSON.parse(answer.combined).message,
    new RegExp(
      `^FSRESIZE_DEVICE_READ_ONLY: ${readOnly.device} is read-only \\(blockdev --getro = 1\\), so the ext4 filesystem on it cannot be grown; nothing was changed`,
    ),
  );
  assert.strictEqual(await dumpe2fsBytes(readOnly.device), 64 * MiB);
});

it('expandfs failures answer Failure with the code and a non-zero exit, and change nothing', async () => {
  const { scratch } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  const mnt = await scratch.directory('mnt');
  await loop.mount(mnt);
  // The device has not grown yet: kubelet must retry later.
  const early = await driver([
    'expandfs',
    OPTIONS,
    loop.device,
    mnt,
    String(128 * MiB),
    String(64 * MiB),
  ]);
  assert.strictEqual(early.code, 1);
  assert.match(JSON.parse(early.combined).message, /^FSRESIZE_DEVICE_TOO_SMALL: /);
  await loop.unmount(mnt);
  await sh('mkfs.vfat', [loop.device]);
  const vfat = await driver([
    'expandfs',
    OPTIONS,
    loop.device,
    '',
    String(64 * MiB),
    String(32 * MiB),
  ]);
  assert.strictEqual(vfat.code, 1);
  assert.strictEqual(vfat.stderr, '');
  const answer = JSON.parse(vfat.combined);
  assert.strictEqual(answer.status, 'Failure');
  assert.match(answer.message, /^FSRESIZE_UNSUPPORTED_FILESYSTEM: resize of vfat is not supported/);
  assert.ok(
    await dumpe2fsBytes(loop.device).then(
      () => false,
      () => true,
    ),
    'the vfat device is no longer ext',
  );
});

it('expandfs whose grow tool cannot get its output files (TMPDIR missing) answers a FSRESIZE_TEMP_FILES_FAILED Failure; nothing changes', async () => {
  const { scratch } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  const mnt = await scratch.directory('mnt');
  await loop.mount(mnt);
  await loop.growBacking(128 * MiB);
  const missing = join(await scratch.directory('tmp'), 'missing');
  const answer = await driver(
    ['expandfs', OPTIONS, loop.device, mnt, String(128 * MiB), String(64 * MiB)],
    envIgnoringUnreadableHere({ ...process.env, TMPDIR: missing }),
  );
  assert.strictEqual(answer.code, 1, answer.combined);
  assert.strictEqual(answer.stderr, '');
  const response = JSON.parse(answer.combined);
  assert.strictEqual(response.status, 'Failure');
  assert.match(
    response.message,
    new RegExp(
      `^FSRESIZE_TEMP_FILES_FAILED: cannot create the files for the output of resize2fs ${loop.device} in the temporary directory ${missing} \\(ENOENT: it does not exist\\); resize2fs was not started, so it changed nothing`,
    ),
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB, 'nothing was grown');
});

it('expandfs with stacked mounts: the device hidden at the mount path is refused FSRESIZE_MOUNT_HIDDEN; without a device, the one shown there grows', async () => {
  const { scratch } = await setup();
  const lower = await scratch.attach(256 * MiB);
  const upper = await scratch.attach(256 * MiB);
  const mnt = await scratch.directory('pod-volume');
  await sh('mkfs.btrfs', ['-q', lower.device]);
  await lower.mount(mnt);
  await sh('mkfs.btrfs', ['-q', upper.device]);
  await upper.mount(mnt);
  await lower.growBacking(384 * MiB);
  await upper.growBacking(512 * MiB);
  const hidden = await driver([
    'expandfs',
    OPTIONS,
    lower.device,
    mnt,
    String(384 * MiB),
    String(256 * MiB),
  ]);
  assert.strictEqual(hidden.code, 1, hidden.combined);
  assert.match(
    JSON.parse(hidden.combined).message,
    new RegExp(
      `^FSRESIZE_MOUNT_HIDDEN: btrfs on ${lower.device} is mounted at ${mnt} but hidden by another mount there`,
    ),
  );
  assert.strictEqual(
    await btrfsBytes(mnt),
    256 * MiB,
    "the filesystem shown there was not grown to the hidden one's device",
  );
  const shown = await driver(['expandfs', OPTIONS, '', mnt, String(512 * MiB), String(256 * MiB)]);
  assert.strictEqual(shown.code, 0, shown.combined);
  assert.strictEqual(await btrfsBytes(mnt), 512 * MiB);
  await upper.unmount(mnt);
  assert.strictEqual(await btrfsBytes(mnt), 256 * MiB, 'the hidden one was not grown');
});

it('the driver called with no operation, or with arguments kubelet would not pass, answers a Failure that starts with its code', async () => {
  for (const [args, message] of [
    [
      [],
      /^FLEXVOLUME_INVALID_CALL: no operation given; kubelet calls init, expandvolume or expandfs$/,
    ],
    [
      ['expandvolume'],
      /^FLEXVOLUME_INVALID_CALL: expandvolume: missing the JSON options argument$/,
    ],
    [
      ['expandfs', '{}', '', '/nonexistent-voe-mount', '10', '1'],
      /^FLEXVOLUME_NO_DEVICE: expandfs: no block device is mounted at \/nonexistent-voe-mount/,
    ],
  ] as const) {
    const answer = await driver([...args]);
    assert.strictEqual(answer.code, 1, answer.combined);
    assert.strictEqual(answer.stderr, '');
    assert.match(JSON.parse(answer.combined).message, message);
  }
});

it('expandfs and voe fsresize grow processes at once on one device named four ways (its /dev node, a symbolic link to it, a node made with mknod, /dev/block/<major:minor>): exactly one grows, every other finds it grown', async () => {
  const { scratch, loop, mnt, sums } = await usedExt4({ files: 2, growTo: 512 * MiB });
  const majorMinor = majorMinorOf((await stat(loop.device)).rdev);
  const nodes = await scratch.directory('names');
  const link = join(nodes, 'link');
  await symlink(loop.device, link);
  const node = join(nodes, 'node');
  await sh('mknod', [node, 'b', ...majorMinor.split(':')]);
  const names = [loop.device, link, node, `/dev/block/${majorMinor}`];
  const byNumber = await stat(names[3]!).then(
    (info) => info.isBlockDevice(),
    () => false,
  );
  if (!byNumber) names.pop(); // no /dev/block links on this machine (no udev)
  const calls = await Promise.all(
    names.flatMap((name) => [
      driver(['expandfs', OPTIONS, name, '', String(512 * MiB), String(64 * MiB)]).then((r) => ({
        name,
        code: r.code,
        message: JSON.parse(r.combined).message as string,
      })),
      new Promise<{ name: string; code: number; message: string }>((resolve) => {
        execFile(
          process.execPath,
          [MAIN, 'fsresize', 'grow', '--device', name, '--json'],
          { encoding: 'utf8', env: envIgnoringUnreadableHere() },
          (error, stdout) => {
            resolve({
              name,
              code: error ? Number(error.code) : 0,
              message: JSON.parse(stdout).reason as string,
            });
          },
        );
      }),
    ]),
  );
  const said = calls.map((c) => `${c.name}: ${c.code} ${c.message}`).join('\n');
  for (const call of calls) assert.strictEqual(call.code, 0, said);
  assert.strictEqual(
    calls.filter((c) =>
      /^(checked \(e2fsck -f -p \S+, exit 0: no errors\) and )?grew ext4 .* offline$/.test(
        c.message,
      ),
    ).length,
    1,
    said,
  );
  assert.strictEqual(
    calls.filter((c) => /already fills the device/.test(c.message)).length,
    calls.length - 1,
    said,
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 512 * MiB);
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('the driver run as kubelet runs it (no environment but PATH, cwd /, stdin closed) with its lock directory /run/voe/fsresize read-only, owned by another user or on a full filesystem (in a mount namespace of its own): one JSON Failure line on stdout, nothing on stderr, exit 1', async () => {
  const { mnt } = await mountedXfs({ growTo: 512 * MiB, files: 0 });
  // In a mount namespace of its own, a tmpfs over /run set up as each case needs, then the driver.
  const run = async (setupRun: string): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const script = `${DROP_OTHER_LOOP_MOUNTS}; unset VOE_KEEP_MOUNT; ${setupRun} && cd / && exec "$@" <&-`;
      execFile(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          '--',
          'sh',
          '-c',
          script,
          'sh',
          process.execPath,
          MAIN,
          'flexvolume',
          'expandfs',
          OPTIONS,
          '',
          mnt,
          String(512 * MiB),
          String(320 * MiB),
        ],
        {
          encoding: 'utf8',
          env: {
            PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
            VOE_KEEP_MOUNT: mnt,
          },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
  const page = systemPageSize();
  const cases: Array<[string, string, RegExp]> = [
    [
      'read-only',
      'mount -t tmpfs -o ro,mode=0755 voe-test-run /run',
      /^FSRESIZE_PERMISSION_DENIED: cannot create the device lock file in \/run\/voe\/fsresize \(EROFS\); it is on a read-only filesystem/,
    ],
    [
      'owned by another user',
      'mount -t tmpfs -o mode=0755 voe-test-run /run && mkdir -p -m 700 /run/voe/fsresize && chown 65534 /run/voe/fsresize',
      /^FSRESIZE_PERMISSION_DENIED: the device lock directory \/run\/voe\/fsresize is owned by uid 65534, not 0: run voe as that user/,
    ],
    [
      'full',
      `mount -t tmpfs -o size=${4 * page},mode=0755 voe-test-run /run && mkdir -p -m 700 /run/voe/fsresize && { head -c ${8 * page} /dev/zero > /run/fill 2>/dev/null; true; }`,
      /^FSRESIZE_LOCK_FAILED: cannot create the device lock file in \/run\/voe\/fsresize \(ENOSPC\); the filesystem holding it is full/,
    ],
  ];
  for (const [what, setupRun, message] of cases) {
    const answer = await run(setupRun);
    assert.strictEqual(answer.stderr, '', what);
    assert.strictEqual(answer.code, 1, `${what}: ${answer.stdout}`);
    assert.match(answer.stdout, /^[^\n]*\n$/, `${what}: one line`);
    const response = JSON.parse(answer.stdout);
    assert.strictEqual(response.status, 'Failure', what);
    assert.match(response.message, message, what);
  }
  assert.strictEqual(await xfsBytes(mnt), 320 * MiB, 'nothing was grown');
  assert.notMatch(
    await readFile('/proc/self/mountinfo', 'utf8'),
    /voe-test-run/,
    'the tmpfs was only ever in the namespaces, gone with them',
  );
});
