/**
 * A process holding a descriptor on a FUSE mount that never answers: every look through /proc on
 * the machine (any test growing an unmounted ext4 meanwhile) would hang on it too. These tests run
 * alone, after the others (scripts/run-tests.mjs runs *.alone.test.js files one at a time).
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  createDeviceLock,
  createExecFileRunner,
  createFsResizer,
  createSystemBlockDevices,
  isFsResizeError,
} from '../../../src/fsresize/index.js';
import { eventually } from '../../support/eventually.js';
import {
  holdOpen,
  hungFuseHeldOpen,
  mountHungFuse,
  stuckInFuse,
} from '../../support/fsresize/hung-fuse-mount.js';
import { MiB } from '../../support/fsresize/loop-device.js';
import { envIgnoringUnreadableHere } from '../../support/unreadable-here.js';
import { dumpe2fsBytes, usedExt4 } from '../../support/fsresize/fixtures.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const OPTIONS = JSON.stringify({
  'kubernetes.io/fsType': 'xfs',
  'kubernetes.io/readwrite': 'rw',
  'kubernetes.io/pvOrVolumeName': 'pv-1',
});

it('looking for other users never waits for ever on a filesystem that does not answer (a FUSE mount without its daemon): FSRESIZE_TIMEOUT naming the path, nothing changed', async () => {
  const { scratch, loop } = await usedExt4();
  const mnt = await scratch.directory('fuse');
  // A FUSE filesystem that never answers, held open elsewhere: stat of that descriptor hangs.
  const { stop: stopDaemon, holderPid } = await hungFuseHeldOpen(mnt);
  const slow = createFsResizer({
    runner: createExecFileRunner(),
    lock: createDeviceLock(),
    devices: createSystemBlockDevices({ runner: createExecFileRunner(), usersTimeoutMs: 1_000 }),
  });
  const growing = slow.grow(loop.device);
  // The holder goes as soon as this process's stat is stuck, so that tests running beside this one
  // (each looking for users of its own device) do not meet it; the stuck stat stays stuck.
  await eventually(() => stuckInFuse(process.pid), 30_000, 'the stat stuck in FUSE').finally(() => {
    try {
      process.kill(holderPid, 'SIGKILL');
    } catch {
      /* gone */
    }
  });
  await expectRejection(growing, (error: unknown) => {
    assert.ok(isFsResizeError(error), String(error));
    assert.strictEqual(error.code, 'FSRESIZE_TIMEOUT', error.message);
    assert.match(
      error.message,
      new RegExp(
        `^looking for other programs that have ${loop.device} open did not finish in time: stat of /proc/${holderPid}/fd/\\d+ \\(pid ${holderPid}\\) did not answer \\(a hung network or FUSE filesystem\\?\\); nothing was changed`,
      ),
    );
    return true;
  });
  await stopDaemon();
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
}).timeout(120_000);

it('expandfs and voe fsresize grow whose look for other users hits a filesystem that never answers: they answer FSRESIZE_TIMEOUT and end (kubelet waits for the exit), nothing changed', async () => {
  const { scratch, loop } = await usedExt4();
  const mnt = await scratch.directory('fuse');
  // The look's stat of a descriptor on a hung FUSE mount hangs in the thread pool after voe stops
  // waiting for it. Every voe on the machine looking for users meanwhile would hang on it too (the
  // tests run two files at a time): the holder is killed as soon as voe's stat is stuck, which
  // keeps it stuck (the request is with FUSE) and the holder out of the other tests' sight.
  const { stop: stopDaemon } = await mountHungFuse(mnt);
  // The stat voe gave up on holds a thread Node would join on exit for ever: having answered, voe ends itself (SIGKILL).
  const run = async (
    args: string[],
  ): Promise<{ signal: string | null; stdout: string; stderr: string }> => {
    const holderPid = await holdOpen(mnt);
    const ended = new Promise<{ signal: string | null; stdout: string; stderr: string }>(
      (resolve) => {
        const child = execFile(
          process.execPath,
          [MAIN, ...args],
          { encoding: 'utf8', env: envIgnoringUnreadableHere() },
          (error, stdout, stderr) => resolve({ signal: error?.signal ?? null, stdout, stderr }),
        );
        void eventually(() => stuckInFuse(child.pid!), 30_000, "voe's stat stuck in FUSE").finally(
          () => process.kill(holderPid, 'SIGKILL'),
        );
      },
    );
    return ended;
  };
  const expandfs = await run([
    'flexvolume',
    'expandfs',
    OPTIONS,
    loop.device,
    '',
    String(256 * MiB),
    String(64 * MiB),
  ]);
  assert.strictEqual(expandfs.signal, 'SIGKILL', expandfs.stdout);
  assert.strictEqual(expandfs.stderr, '');
  const answer = JSON.parse(expandfs.stdout) as { status: string; message: string };
  assert.strictEqual(answer.status, 'Failure');
  assert.match(
    answer.message,
    /^FSRESIZE_TIMEOUT: looking for other programs that have .* open did not finish in time: stat of \/proc\/\d+\/fd\/\d+/,
  );
  const grow = await run(['fsresize', 'grow', '--device', loop.device, '--json']);
  assert.strictEqual(grow.signal, 'SIGKILL', grow.stdout);
  assert.strictEqual(JSON.parse(grow.stdout).error.code, 'FSRESIZE_TIMEOUT');
  await stopDaemon();
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
}).timeout(180_000);
