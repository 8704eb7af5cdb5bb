/**
 * The core's error paths with the real tools on real loop devices: a grow tool that fails and a
 * grow that runs out of time both reach the caller as typed errors carrying the tool's report,
 * and leave the filesystem and its files as they were (a later grow still works).
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { expectRejection } from '../../support/expect-error.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  createDeviceLock,
  createExecFileRunner,
  createFsResizer,
  isFsResizeError,
  type CommandRunner,
} from '../../../src/fsresize/index.js';
import { DEFAULT_SEARCH_PATH } from '../../../src/fsresize/run/exec-file-runner.js';
import { MiB, readChecksums, sh } from '../../support/fsresize/loop-device.js';
import { eventually } from '../../support/eventually.js';
import { mountHungFuse } from '../../support/fsresize/hung-fuse-mount.js';
import { growCalls } from '../../support/fsresize/recording-runner.js';
import {
  dumpe2fsBytes,
  mountedXfs,
  setup,
  usedExt4,
  xfsBytes,
} from '../../support/fsresize/fixtures.js';
import { unreadablePolicyHere } from '../../support/unreadable-here.js';

const NAMESPACE_FIXTURE = fileURLToPath(
  new URL('../../support/fixtures/mount-in-own-namespace.js', import.meta.url),
);

function resizerWith(lockDirectory: string, runner: CommandRunner, growMs?: number) {
  return createFsResizer({
    runner,
    lock: createDeviceLock({ directory: lockDirectory }),
    unreadableProcesses: unreadablePolicyHere,
    ...(growMs === undefined ? {} : { timeouts: { growMs } }),
  });
}

it('a grow tool that exits non-zero is FSRESIZE_TOOL_FAILED with its exit code and stderr; nothing changed', async () => {
  const { loop, mnt, sums, lockDirectory } = await usedExt4();
  const real = createExecFileRunner();
  // resize2fs itself, given a size it rejects: a real failure, with resize2fs's own message.
  const failing: CommandRunner = {
    run: (command, args, options) =>
      real.run(command, command === 'resize2fs' ? [...args, 'not-a-size'] : args, options),
  };
  const error = await resizerWith(lockDirectory, failing)
    .grow(loop.device)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(isFsResizeError(error), String(error));
  assert.strictEqual(error.code, 'FSRESIZE_TOOL_FAILED');
  const tool = error.details['tool'] as { tool: string; exitCode: number; stderr: string };
  assert.strictEqual(tool.tool, 'resize2fs');
  assert.notStrictEqual(tool.exitCode, 0);
  assert.match(tool.stderr, /not-a-size/);
  assert.match(error.message, /not-a-size/);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
  const after = await resizerWith(lockDirectory, real).grow(loop.device);
  assert.strictEqual(after.action, 'grown');
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('a grow that runs out of time is FSRESIZE_TIMEOUT naming the tool, which is left to finish (never stopped midway); the next grow waits for it and finds the filesystem grown and intact', async () => {
  const { lockDirectory, loop, mnt, sums } = await mountedXfs({ growTo: 1024 * MiB });
  // A slow xfs_growfs first on PATH: it waits 3 s before running the real one, so a 500 ms
  // timeout always passes before it changes anything (a bare 1 ms timeout races with a fast grow).
  const real = await findTool('xfs_growfs');
  const bin = await mkdtemp(join(tmpdir(), 'voe-slow-tool-'));
  onCleanup(() => rm(bin, { recursive: true, force: true }));
  await writeFile(join(bin, 'xfs_growfs'), `#!/bin/sh\nsleep 3\nexec ${real} "$@"\n`, {
    mode: 0o755,
  });
  const slow = createExecFileRunner({ searchPath: `${bin}:${DEFAULT_SEARCH_PATH}` });
  const error = await resizerWith(lockDirectory, slow, 500)
    .grow(loop.device)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(isFsResizeError(error), String(error));
  assert.strictEqual(error.code, 'FSRESIZE_TIMEOUT');
  assert.match(
    error.message,
    /^xfs_growfs -d \S+ did not finish within 500 ms and is still running \(pid \d+\)/,
  );
  assert.strictEqual(await xfsBytes(mnt), 320 * MiB, 'not grown yet when voe stopped waiting');
  const waited: string[] = [];
  const result = await resizerWith(lockDirectory, createExecFileRunner()).grow(loop.device, {
    onLockWait: (holder) => waited.push(holder),
  });
  assert.deepStrictEqual(
    waited,
    [String(error.details?.['pid'])],
    'the next grow waited for the tool left running',
  );
  assert.strictEqual(result.action, 'noop', result.reason);
  assert.match(result.reason, /already fills the device/);
  assert.strictEqual(await xfsBytes(mnt), 1024 * MiB, 'the tool left running grew it');
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

/** The absolute path of `tool` on the runner's search path. */
async function findTool(tool: string): Promise<string> {
  for (const dir of DEFAULT_SEARCH_PATH.split(':')) {
    const path = join(dir, tool);
    if (
      await access(path, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  throw new Error(`${tool} is not installed`);
}

// A mounted ext4 has needs_recovery set on disk, so the core checks it first: e2fsck finds the
// device in use (resize2fs, which says "Device or resource busy", is covered by the unit test).
it('ext4 mounted only in another mount namespace: e2fsck finds the device in use, FSRESIZE_TOOL_FAILED with a hint to grow it where it is mounted', async () => {
  const { scratch, resizer, calls } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  const mnt = await scratch.directory('elsewhere');
  // A mount in a private mount namespace, as inside a container: /proc/self/mountinfo does not show it.
  const holder = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      '--',
      process.execPath,
      NAMESPACE_FIXTURE,
      loop.device,
      mnt,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const gone = once(holder, 'exit');
  onCleanup(async () => {
    holder.stdin.end();
    if (holder.exitCode === null && holder.signalCode === null) await gone;
  });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('mounted')) resolve();
    });
    holder.once('exit', (code) =>
      reject(new Error(`the namespace holder exited (${code}) before mounting`)),
    );
  });
  await loop.growBacking(128 * MiB);
  assert.isNull((await resizer.inspect(loop.device)).mountPoint, 'voe cannot see the mount');
  const error = await resizer.grow(loop.device).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(isFsResizeError(error), String(error));
  assert.strictEqual(error.code, 'FSRESIZE_TOOL_FAILED');
  assert.strictEqual(error.tool?.tool, 'e2fsck');
  assert.match(error.message, /is in use/);
  assert.match(
    error.message,
    /mounted in another mount namespace \(e\.g\. a container\)\? .*grow it where it is mounted/,
  );
  assert.strictEqual(
    growCalls(calls) + calls.filter((c) => c[0] === 'e2fsck').length,
    1,
    'one tool ran and failed',
  );
  holder.stdin.end();
  await gone;
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB, 'nothing was grown');
});

it('a probe stuck in the kernel where no signal reaches it (waiting behind a lookup on a FUSE mount that never answers) is given up on after SIGTERM and SIGKILL: FSRESIZE_TIMEOUT, the caller is not held', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'voe-stuck-probe-'));
  const fuse = join(scratch, 'fuse');
  await mkdir(fuse);
  const hung = await mountHungFuse(fuse).catch(async (error: unknown) => {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  });
  // Registered after the mount's own stop (hooks run in order): never removes into a mount that never answers.
  onCleanup(() => rm(scratch, { recursive: true, force: true }));
  // The first lookup of fuse/x waits on the daemon; a second one waits for the first,
  // uninterruptibly (not even SIGKILL wakes it) until the first ends.
  const first = spawn('stat', [join(fuse, 'x')], { stdio: 'ignore' });
  onCleanup(() => {
    first.kill('SIGKILL');
  });
  // Until the first is waiting in FUSE (its kernel wait channel), the probe could be the first lookup itself.
  for (
    let waited = 0;
    !(await readFile(`/proc/${first.pid}/wchan`, 'utf8').catch(() => '')).startsWith('fuse');
    waited += 20
  ) {
    if (waited > 20_000) assert.fail('the first stat never waited in FUSE');
    await delay(20);
  }
  const runner = createExecFileRunner({ killGraceMs: 500 });
  await expectRejection(
    runner.run('stat', [join(fuse, 'x')], { timeoutMs: 500 }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error), String(error));
      assert.strictEqual(error.code, 'FSRESIZE_TIMEOUT');
      assert.match(
        error.message,
        /^stat .*\/x did not finish within 500 ms and did not stop within 1000 ms of SIGTERM and SIGKILL; it was left running/,
      );
      return true;
    },
  );
  // The caller was answered while the probe still runs: it cannot end before the FUSE daemon stops (below).
  const probes = (await childProcesses()).filter((p) => p.comm === 'stat' && p.pid !== first.pid);
  assert.strictEqual(probes.length, 1, `one probe left running: ${JSON.stringify(probes)}`);
  const probe = probes[0]!;
  assert.notStrictEqual(probe.state, 'Z', 'the probe has not ended');
  await hung.stop(); // the lookups end: nothing is left running
  await eventually(
    async () => !(await childProcesses()).some((p) => p.pid === probe.pid),
    30_000,
    'the probe to end once the FUSE daemon stopped',
  );
}).timeout(60_000);

/** This process's children: pid, command name and state, from /proc/<pid>/stat. */
async function childProcesses(): Promise<Array<{ pid: number; comm: string; state: string }>> {
  const children = [];
  for (const name of (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry))) {
    const stat = /^(\d+) \((.*)\) (\S) (\d+) /s.exec(
      await readFile(`/proc/${name}/stat`, 'utf8').catch(() => ''),
    );
    if (stat && Number(stat[4]) === process.pid)
      children.push({ pid: Number(stat[1]), comm: stat[2]!, state: stat[3]! });
  }
  return children;
}
