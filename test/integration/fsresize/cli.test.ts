import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createDeviceLock } from '../../../src/fsresize/index.js';
import { majorMinorOf } from '../../../src/fsresize/devices/major-minor-of.js';
import { eventually } from '../../support/eventually.js';
import { MiB, readChecksums, sh } from '../../support/fsresize/loop-device.js';
import {
  dumpe2fsBytes,
  mountedXfs,
  setup,
  usedExt4,
  xfsBytes,
} from '../../support/fsresize/fixtures.js';
import { envIgnoringUnreadableHere } from '../../support/unreadable-here.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));

function voe(
  args: string[],
  env: NodeJS.ProcessEnv = envIgnoringUnreadableHere(),
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { encoding: 'utf8', env },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          stdout,
          stderr,
        });
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end();
  });
}

it('voe fsresize grow --json grows ext4 offline and prints before/after bytes', async () => {
  const { scratch, lockDirectory } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(160 * MiB);
  const dry = await voe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--dry-run',
    '--json',
    '--lock-dir',
    lockDirectory,
  ]);
  assert.strictEqual(dry.code, 0, dry.stderr);
  assert.strictEqual(JSON.parse(dry.stdout).action, 'noop');
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);

  const run = await voe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--json',
    '--lock-dir',
    lockDirectory,
  ]);
  assert.strictEqual(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.strictEqual(result.action, 'grown');
  assert.strictEqual(result.filesystem, 'ext4');
  assert.strictEqual(result.beforeBytes, 64 * MiB);
  assert.strictEqual(result.afterBytes, 160 * MiB);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 160 * MiB);
});

it('voe fsresize grow says when e2fsck -f -p ran first: a "check" line, and precheck in --json', async () => {
  const { lockDirectory, loop } = await usedExt4({
    files: 1,
    growTo: 128 * MiB,
    beforeGrowing: (l) => sh('tune2fs', ['-T', '20000101', l.device]),
  });
  const dry = await voe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--dry-run',
    '--lock-dir',
    lockDirectory,
  ]);
  assert.strictEqual(dry.code, 0, dry.stderr);
  assert.match(
    dry.stdout,
    new RegExp(`^ {2}check {3}e2fsck -f -p ${loop.device} \\(would run first\\)$`, 'm'),
  );
  const human = await voe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--lock-dir',
    lockDirectory,
  ]);
  assert.strictEqual(human.code, 0, human.stderr);
  assert.match(
    human.stdout,
    new RegExp(`^ {2}check {3}e2fsck -f -p ${loop.device} \\(exit 0: no errors\\)$`, 'm'),
  );
  assert.match(
    human.stdout,
    /^ {2}reason {2}checked \(e2fsck -f -p \S+, exit 0: no errors\) and grew ext4/m,
  );
  await loop.growBacking(192 * MiB);
  await sh('tune2fs', ['-T', '20000101', loop.device]);
  const json = JSON.parse(
    (
      await voe([
        'fsresize',
        'grow',
        '--device',
        loop.device,
        '--json',
        '--lock-dir',
        lockDirectory,
      ])
    ).stdout,
  );
  assert.strictEqual(json.action, 'grown');
  assert.deepStrictEqual(json.precheck, {
    command: ['e2fsck', '-f', '-p', loop.device],
    exitCode: 0,
  });
  assert.deepStrictEqual(json.command, ['resize2fs', loop.device]);
});

it('voe fsresize grow prints a human report; a second run is a no-op', async () => {
  const { lockDirectory, loop, mnt } = await mountedXfs({ growTo: 512 * MiB, files: 0 });
  const first = await voe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--mount',
    mnt,
    '--lock-dir',
    lockDirectory,
  ]);
  assert.strictEqual(first.code, 0, first.stderr);
  assert.match(first.stdout, new RegExp(`^xfs on ${loop.device} mounted at ${mnt}: grown$`, 'm'));
  assert.match(first.stdout, /^ {2}before {2}320\.0 MiB \(335544320 bytes\)$/m);
  assert.match(first.stdout, /^ {2}after {3}512\.0 MiB \(536870912 bytes\)$/m);
  assert.strictEqual(await xfsBytes(mnt), 512 * MiB);
  const second = await voe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--lock-dir',
    lockDirectory,
  ]);
  assert.strictEqual(second.code, 0, second.stderr);
  assert.match(second.stdout, /: noop$/m);
  assert.match(second.stdout, /already fills the device/);
});

it('voe fsresize grow: a refusal is "voe: CODE: message" on stderr (or JSON with --json) and exit code 2', async () => {
  const { scratch, lockDirectory } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.vfat', [loop.device]);
  const human = await voe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--lock-dir',
    lockDirectory,
  ]);
  assert.strictEqual(human.code, 2);
  assert.strictEqual(human.stdout, '');
  assert.match(
    human.stderr,
    /^voe: FSRESIZE_UNSUPPORTED_FILESYSTEM: resize of vfat is not supported/,
  );
  const json = await voe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--json',
    '--lock-dir',
    lockDirectory,
  ]);
  assert.strictEqual(json.code, 2);
  assert.strictEqual(JSON.parse(json.stdout).error.code, 'FSRESIZE_UNSUPPORTED_FILESYSTEM');
});

it('voe fsresize grow: every error has a code, also one the core does not raise itself: JSON on stdout with --json, one "voe: CODE: message" line otherwise', async () => {
  const { scratch, lockDirectory } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(128 * MiB);
  // The grow tool's output files cannot be created: the temporary directory does not exist.
  const env = envIgnoringUnreadableHere({
    ...process.env,
    TMPDIR: join(await scratch.directory('tmp'), 'no-such-tmp'),
  });
  const json = await voe(
    ['fsresize', 'grow', '--device', loop.device, '--json', '--lock-dir', lockDirectory],
    env,
  );
  assert.strictEqual(json.code, 2, json.stderr);
  assert.strictEqual(json.stderr, '');
  const { error } = JSON.parse(json.stdout);
  assert.match(error.code, /^FSRESIZE_[A-Z_]+$/);
  assert.match(error.message, /no-such-tmp/);
  assert.strictEqual(error.code, 'FSRESIZE_TEMP_FILES_FAILED');
  assert.match(
    error.message,
    new RegExp(
      `^cannot create the files for the output of resize2fs ${loop.device} in the temporary directory ${env.TMPDIR} \\(ENOENT: it does not exist\\); resize2fs was not started, so it changed nothing`,
    ),
  );
  assert.deepStrictEqual(error.details, { directory: env.TMPDIR, errno: 'ENOENT' });
  const human = await voe(
    ['fsresize', 'grow', '--device', loop.device, '--lock-dir', lockDirectory],
    env,
  );
  assert.strictEqual(human.code, 2);
  assert.strictEqual(human.stdout, '');
  assert.match(human.stderr, /^voe: FSRESIZE_[A-Z_]+: [^\n]*\n$/, 'one line, no stack trace');
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB, 'nothing was grown');
});

it('voe fsresize grow: usage errors exit 2 and change nothing; --timeout must be 1 s to about 24 days', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['fsresize', 'grow'], /required option '--device <path>' not specified/],
    [
      ['fsresize', 'grow', '--device', '/dev/null', '--timeout', '0'],
      /--timeout <seconds>' argument '0' is invalid\. must be a number of seconds from 1 to 2147483/,
    ],
    [
      ['fsresize', 'grow', '--device', '/dev/null', '--timeout', '1e300'],
      /argument '1e300' is invalid/,
    ],
    [
      ['fsresize', 'grow', '--device', '/dev/null', '--timeout', '0.0001'],
      /argument '0\.0001' is invalid/,
    ],
    [
      ['fsresize', 'grow', '--device', '/dev/null', '--no-such-flag'],
      /unknown option '--no-such-flag'/,
    ],
  ];
  for (const [args, stderr] of cases) {
    const result = await voe(args);
    assert.strictEqual(result.code, 2, args.join(' '));
    assert.match(result.stderr, stderr);
    assert.strictEqual(result.stdout, '');
  }
});

it('two concurrent voe fsresize processes on one device: exactly one grows', async () => {
  const { lockDirectory, loop, mnt, sums } = await usedExt4({ files: 2, growTo: 512 * MiB });
  const runs = await Promise.all(
    [1, 2, 3].map(() =>
      voe(['fsresize', 'grow', '--device', loop.device, '--json', '--lock-dir', lockDirectory]),
    ),
  );
  for (const run of runs) assert.strictEqual(run.code, 0, run.stderr);
  assert.deepStrictEqual(runs.map((r) => JSON.parse(r.stdout).action).sort(), [
    'grown',
    'noop',
    'noop',
  ]);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 512 * MiB);
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('voe fsresize grow whose stderr reader went away (a closed pipe) while it waits for the device lock: the notice is lost, not voe; it grows once the lock is free and prints its result', async () => {
  const { lockDirectory, loop, mnt } = await mountedXfs({ growTo: 512 * MiB, files: 0 });
  const majorMinor = majorMinorOf((await stat(loop.device)).rdev);
  const held = await createDeviceLock({ directory: lockDirectory }).acquire(majorMinor);
  let released = false;
  onCleanup(async () => {
    if (!released) await held();
  });
  const child = spawn(
    process.execPath,
    [MAIN, 'fsresize', 'grow', '--device', loop.device, '--json', '--lock-dir', lockDirectory],
    { stdio: ['ignore', 'pipe', 'pipe'], env: envIgnoringUnreadableHere() },
  );
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const closed = once(child, 'close');
  child.stderr.destroy(); // its read end closed: voe's writes to stderr fail with EPIPE
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  // It says that it waits (to the closed stderr) right after staging its lock content next to the held lock.
  const staged = new RegExp(`^${majorMinor.replace(':', '-')}\\.lock\\.[0-9a-f-]{36}$`);
  await eventually(
    async () => (await readdir(lockDirectory)).some((name) => staged.test(name)),
    30_000,
    'voe waiting for the lock',
  );
  await delay(1000);
  assert.isNull(child.exitCode, 'still waiting: the closed stderr did not end voe');
  released = true;
  await held();
  const [code, signal] = await closed;
  assert.deepStrictEqual([code, signal], [0, null], stdout);
  const result = JSON.parse(stdout);
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.strictEqual(await xfsBytes(mnt), 512 * MiB);
});
