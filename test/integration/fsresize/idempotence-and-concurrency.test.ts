import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { join } from 'node:path';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import {
  createDeviceLock,
  createExecFileRunner,
  createFsResizer,
  isFsResizeError,
} from '../../../src/fsresize/index.js';
import { extGrowTarget } from '../../../src/fsresize/plan/ext-grow-target.js';
import { majorMinorOf } from '../../../src/fsresize/devices/major-minor-of.js';
import { systemPageSize } from '../../../src/fsresize/devices/system-page-size.js';
import { eventually } from '../../support/eventually.js';
import {
  MiB,
  readChecksums,
  sh,
  writeChecksummedFiles,
} from '../../support/fsresize/loop-device.js';
import { growCalls, recordingRunner } from '../../support/fsresize/recording-runner.js';
import {
  dumpe2fsBytes,
  mountedXfs,
  setup,
  usedExt4,
  xfsBytes,
} from '../../support/fsresize/fixtures.js';
import { unreadablePolicyHere } from '../../support/unreadable-here.js';

it('a second grow after success does nothing (idempotent)', async () => {
  const { resizer, calls, loop, mnt, sums } = await mountedXfs({ growTo: 640 * MiB });
  const first = await resizer.grow(loop.device);
  assert.strictEqual(first.action, 'grown');
  const second = await resizer.grow(loop.device);
  assert.strictEqual(second.action, 'noop');
  assert.match(second.reason, /already fills the device/);
  assert.strictEqual(second.beforeBytes, first.afterBytes);
  assert.strictEqual(second.afterBytes, first.afterBytes);
  assert.strictEqual(growCalls(calls), 1);
  assert.strictEqual(await xfsBytes(mnt), 640 * MiB);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('a 1 KiB-block ext4 on a device 3 KiB past a page boundary: resize2fs can only reach the boundary, so voe runs no tool (neither e2fsck nor resize2fs) once the filesystem is there', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(100 * MiB);
  await sh('mkfs.ext4', ['-q', '-b', '1024', loop.device]);
  const mnt = await scratch.directory('mnt');
  // Mounted after its last check: an offline resize2fs would want e2fsck -f first.
  await sh('tune2fs', ['-T', '20000101', loop.device]);
  await loop.mount(mnt);
  const sums = await writeChecksummedFiles(mnt, 2);
  await loop.unmount(mnt);
  await loop.growBacking(100 * MiB + 3072);
  const target = (bytes: number): number => extGrowTarget(bytes, 1024, systemPageSize());
  assert.strictEqual(
    target(100 * MiB + 3072),
    100 * MiB,
    'pages of 4 KiB or more (every Linux page size)',
  );
  for (const dryRun of [true, false, false]) {
    const result = await resizer.grow(loop.device, { dryRun });
    assert.strictEqual(result.action, 'noop');
    assert.isNull(result.command, 'no grow tool, not even in a dry run');
    assert.isNull(result.precheck);
    assert.match(
      result.reason,
      /already has the size resize2fs can reach .*so the last 3072 bytes of the device stay unused\): nothing to grow$/,
    );
  }
  assert.deepStrictEqual(
    calls.filter((c) => c[0] !== 'blkid'),
    [],
    'only the probes ran',
  );
  // Grown by 1 MiB more: one check and one grow to the page boundary, then nothing again.
  await loop.growBacking(101 * MiB + 3072);
  const grown = await resizer.grow(loop.device);
  assert.strictEqual(grown.action, 'grown', grown.reason);
  assert.strictEqual(grown.afterBytes, target(101 * MiB + 3072));
  assert.strictEqual(await dumpe2fsBytes(loop.device), 101 * MiB);
  const again = await resizer.grow(loop.device);
  assert.strictEqual(again.action, 'noop');
  assert.isNull(again.command);
  assert.strictEqual(growCalls(calls), 1);
  assert.strictEqual(
    calls.filter((c) => c[0] === 'e2fsck').length,
    1,
    'the check ran before the one grow only',
  );
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('a dry run changes nothing and says what it would run', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(128 * MiB);
  const result = await resizer.grow(loop.device, { dryRun: true });
  assert.strictEqual(result.action, 'noop');
  assert.isTrue(result.dryRun);
  assert.deepStrictEqual(result.command, ['resize2fs', loop.device]);
  assert.isNull(result.precheck);
  // Never mounted since mkfs: resize2fs would not demand a check, so none is planned.
  assert.match(
    result.reason,
    /^dry run: would grow ext4 on \S+ from 64\.0 MiB to 128\.0 MiB offline with: resize2fs \S+$/,
  );
  assert.strictEqual(growCalls(calls), 0);
  assert.strictEqual(calls.filter((c) => c[0] === 'e2fsck').length, 0);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
});

it('concurrent grows of one device in one process: exactly one grow, the others see it done', async () => {
  const { resizer, calls, loop, mnt, sums } = await usedExt4({ files: 2 });
  const results = await Promise.all([1, 2, 3, 4].map(() => resizer.grow(loop.device)));
  assert.deepStrictEqual(results.map((r) => r.action).sort(), ['grown', 'noop', 'noop', 'noop']);
  for (const r of results.filter((x) => x.action === 'noop'))
    assert.match(r.reason, /already fills the device/);
  assert.strictEqual(growCalls(calls), 1);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 256 * MiB);
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('concurrent grows through two resizers sharing the node lock directory: exactly one grow', async () => {
  const { scratch, lockDirectory } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(256 * MiB);
  // Two independent resizers stand for two processes (e.g. kubelet's FlexVolume call and an operator).
  const runners = [
    recordingRunner(createExecFileRunner()),
    recordingRunner(createExecFileRunner()),
  ];
  const resizers = runners.map((runner) =>
    createFsResizer({
      runner,
      lock: createDeviceLock({ directory: lockDirectory, pollMs: 10 }),
      unreadableProcesses: unreadablePolicyHere,
    }),
  );
  const results = await Promise.all(resizers.map((r) => r.grow(loop.device)));
  assert.deepStrictEqual(results.map((r) => r.action).sort(), ['grown', 'noop']);
  assert.strictEqual(growCalls(runners.flatMap((r) => r.calls)), 1);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 256 * MiB);
});

it('a device name given to another device while voe waited for the lock: FSRESIZE_DEVICE_CHANGED, neither device is touched', async () => {
  const { scratch, resizer, calls, loop, lockDirectory } = await usedExt4();
  const other = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', other.device]);
  await other.growBacking(128 * MiB);
  const node = `${await scratch.directory('nodes')}/disk`;
  const numbers = async (device: string): Promise<string> =>
    majorMinorOf((await stat(device)).rdev);
  const [first, second] = [await numbers(loop.device), await numbers(other.device)];
  await sh('mknod', [node, 'b', ...first.split(':')]);
  // Another voe holds the first device's lock.
  const release = await createDeviceLock({ directory: lockDirectory }).acquire(first);
  const growing = resizer.grow(node);
  growing.catch(() => undefined);
  // Waiting once its staged lock content sits next to the first device's lock file.
  const waiting = new RegExp(`^${first.replace(':', '-')}\\.lock\\.[0-9a-f-]{36}$`);
  await eventually(
    async () => (await readdir(lockDirectory)).some((name) => waiting.test(name)),
    30_000,
    'the grow waiting for the lock',
  );
  await rm(node);
  await sh('mknod', [node, 'b', ...second.split(':')]);
  await release();
  await expectRejection(growing, (error: unknown) => {
    assert.ok(isFsResizeError(error), String(error));
    assert.strictEqual(error.code, 'FSRESIZE_DEVICE_CHANGED', error.message);
    assert.strictEqual(
      error.message,
      `${node} now leads to ${node} (${second}), not to the device voe locked and inspected (${node}, ${first}): the name was given to another device meanwhile; nothing was changed — check which device to grow and retry`,
    );
    return true;
  });
  assert.strictEqual(growCalls(calls), 0);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
  assert.strictEqual(await dumpe2fsBytes(other.device), 64 * MiB);
});

it('a grow tool still running at the timeout is left running and keeps the device lock: the next grow waits for it, then finds the filesystem grown and intact', async () => {
  const { scratch, lockDirectory } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(256 * MiB);
  // resize2fs made slow (2 s before it starts), as a long grow of a large filesystem is.
  const real = createExecFileRunner();
  const slow = recordingRunner({
    run: (command, args, options) =>
      command === 'resize2fs'
        ? real.run('sh', ['-c', 'sleep 2; exec resize2fs "$@"', 'resize2fs', ...args], options)
        : real.run(command, args, options),
  });
  const lock = () => createDeviceLock({ directory: lockDirectory });
  const impatient = createFsResizer({
    runner: slow,
    lock: lock(),
    unreadableProcesses: unreadablePolicyHere,
    timeouts: { growMs: 500 },
  });
  let toolPid = 0;
  await expectRejection(impatient.grow(loop.device), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_TIMEOUT');
    assert.match(
      error.message,
      /is still running \(pid \d+\): voe stopped waiting but left it running/,
    );
    toolPid = error.details?.['pid'] as number;
    return true;
  });
  const [lockFile] = await readdir(lockDirectory);
  assert.ok(lockFile, 'the lock file stays');
  assert.match(
    await readFile(join(lockDirectory, lockFile), 'utf8'),
    new RegExp(`^${toolPid} `),
    'handed to the running tool',
  );

  const next = createFsResizer({
    runner: createExecFileRunner(),
    lock: lock(),
    unreadableProcesses: unreadablePolicyHere,
  });
  const waited: string[] = [];
  const result = await next.grow(loop.device, { onLockWait: (holder) => waited.push(holder) });
  assert.deepStrictEqual(waited, [String(toolPid)], 'the next grow waited for the tool');
  assert.strictEqual(result.action, 'noop', result.reason);
  assert.match(
    result.reason,
    /already fills the device \(256\.0 MiB of 256\.0 MiB\): nothing to grow$/,
  );
  assert.strictEqual(await dumpe2fsBytes(loop.device), 256 * MiB);
  assert.match(
    await sh('e2fsck', ['-f', '-n', loop.device]),
    /clean|files/,
    'the filesystem checks clean',
  );
});
