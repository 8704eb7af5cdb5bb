/**
 * voe stopped while a grow tool runs, with real processes: resize2fs growing a 1 GiB ext4 to
 * 8 TiB offline takes a few seconds, long enough to signal voe in the middle of it.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { eventually } from '../../support/eventually.js';
import { expectRejection } from '../../support/expect-error.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDeviceLock } from '../../../src/fsresize/index.js';
import { hasEnded, readProcessStat } from '../../../src/lock/index.js';
import { processStartTime } from '../../../src/lock/process-start-time.js';
import {
  DROP_OTHER_LOOP_MOUNTS,
  GiB,
  MiB,
  readChecksums,
  sh,
  writeChecksummedFiles,
} from '../../support/fsresize/loop-device.js';
import { dumpe2fsBytes, setup } from '../../support/fsresize/fixtures.js';
import { envIgnoringUnreadableHere } from '../../support/unreadable-here.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const TiB = 1024 * GiB;
const GROWN = 8 * TiB;

interface Voe {
  child: ChildProcess;
  done: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>;
  /** Runs `check` in voe's exit event: as soon as this process learns that voe has ended. */
  atExit(check: () => void): void;
  /** What it wrote on stderr so far. */
  stderr(): string;
}

/** Runs the voe CLI; it is killed after the test if it still runs (also when the test fails). */
function startVoe(args: string[]): Voe {
  const child = spawn(process.execPath, [MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: envIgnoringUnreadableHere(),
  });
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const checks: Array<() => void> = [];
  child.once('exit', () => {
    for (const check of checks) check();
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const done = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
  }));
  return {
    child,
    done,
    atExit: (check) => {
      checks.push(check);
    },
    stderr: () => stderr,
  };
}

/** One process: its pid and its start time (a later process with the same pid is another). */
interface Tool {
  pid: number;
  start: number;
}

/** The tool still runs: its pid still names it, and it has not ended (a zombie waiting to be reaped has). */
function running(tool: Tool): boolean {
  const stat = readProcessStat(tool.pid);
  return stat !== null && !hasEnded(stat) && stat.startTime === tool.start;
}

/**
 * The tool named `name` the lock file records as running (helper=), once it does. Killed after
 * the test if it still runs then (a test that failed half-way; voe lets a grow tool run on).
 */
async function runningTool(lockFile: string, name: string): Promise<Tool> {
  let tool: Tool | undefined;
  // Every 10 ms: the test must catch the tool while it runs.
  await eventually(
    async () => {
      const pid = Number(
        / helper=(\d+)/.exec(await readFile(lockFile, 'utf8').catch(() => ''))?.[1],
      );
      const start = pid ? processStartTime(pid) : null;
      if (start === null) return false;
      if ((await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim() !== name)
        return false;
      tool = { pid, start };
      return true;
    },
    60_000,
    `${name} to show up in ${lockFile}`,
    { intervalMs: 10 },
  );
  const found = tool!;
  onCleanup(() => {
    if (running(found)) process.kill(found.pid, 'SIGKILL');
  });
  return found;
}

/**
 * Sends `signal` to `voe` while the lock file names a running resize2fs, and resolves with voe's
 * end once it has checked that voe waited for resize2fs: resize2fs no longer ran when voe exited
 * (looked at in voe's exit event, so a voe that exited first would find it running).
 */
async function signalWhileResize2fsRuns(
  voe: Voe,
  lockFile: string,
  signal: NodeJS.Signals,
): Promise<Awaited<Voe['done']>> {
  const tool = await runningTool(lockFile, 'resize2fs');
  let ranAtExit: boolean | undefined;
  voe.atExit(() => {
    ranAtExit = running(tool);
  });
  voe.child.kill(signal);
  assert.ok(
    running(tool),
    'resize2fs still ran when the signal was sent (too fast on this machine to test?)',
  );
  const result = await voe.done;
  assert.isFalse(ranAtExit, 'voe exited only after resize2fs had ended');
  return result;
}

async function majorMinorOf(device: string): Promise<string> {
  return (await readFile(`/sys/class/block/${basename(device)}/dev`, 'utf8')).trim();
}

/**
 * A 1 GiB ext4 a workload used (so e2fsck -f -p runs first), on a device grown to 8 TiB, and
 * the path of its lock file in the test's lock directory (or in `lockDirectory`).
 */
async function bigUsedExt4(lockDirectory?: string) {
  const context = await setup();
  const loop = await context.scratch.attach(GiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  const mnt = await context.scratch.directory('mnt');
  await loop.mount(mnt);
  const sums = await writeChecksummedFiles(mnt, 2);
  await loop.unmount(mnt);
  // Checked long before it was mounted: resize2fs would demand e2fsck -f (whatever second mkfs and mount fell in).
  await sh('tune2fs', ['-T', '20000101', loop.device]);
  await loop.growBacking(GROWN);
  const majorMinor = await majorMinorOf(loop.device);
  return {
    ...context,
    loop,
    mnt,
    sums,
    lockFile: join(lockDirectory ?? context.lockDirectory, `${majorMinor.replace(':', '-')}.lock`),
  };
}

it('voe killed (SIGKILL) during resize2fs: resize2fs runs to its end and keeps the device locked; the next voe waits for it, then finds the work done', async () => {
  const { lockDirectory, lockFile, loop, mnt, sums } = await bigUsedExt4();
  const args = ['fsresize', 'grow', '--device', loop.device, '--json', '--lock-dir', lockDirectory];
  const first = startVoe(args);
  const tool = await runningTool(lockFile, 'resize2fs');
  first.child.kill('SIGKILL');
  assert.strictEqual((await first.done).signal, 'SIGKILL');
  assert.ok(running(tool), 'resize2fs outlives the killed voe (too fast on this machine to test?)');
  assert.match(
    await readFile(lockFile, 'utf8'),
    new RegExp(` helper=${tool.pid}:${tool.start}\\n$`),
    'the lock still names the running tool',
  );

  // Paused (SIGSTOP: still running, still the lock's holder) until the second voe says it waits,
  // so that a resize2fs faster than a voe's start cannot end before the second voe looks.
  process.kill(tool.pid, 'SIGSTOP');
  let second: Voe;
  try {
    second = startVoe(args);
    const waiting = second;
    await eventually(
      () => /waiting for another resize/.test(waiting.stderr()) || waiting.child.exitCode !== null,
      60_000,
      'the second voe to say it waits (or to end)',
      { intervalMs: 20 },
    );
  } finally {
    process.kill(tool.pid, 'SIGCONT');
  }
  let ranAtSecondExit: boolean | undefined;
  second.atExit(() => {
    ranAtSecondExit = running(tool);
  });
  const result = await second.done;
  assert.strictEqual(result.code, 0, result.stderr);
  assert.isFalse(ranAtSecondExit, 'the second voe finished only after resize2fs had');
  assert.match(
    result.stderr,
    new RegExp(
      `^voe: waiting for another resize of ${loop.device} to finish \\(its lock is held by pid ${first.child.pid}\\); up to 30 minutes, Ctrl-C stops waiting and changes nothing$`,
      'm',
    ),
    'the wait is said, not silent',
  );
  const json = JSON.parse(result.stdout);
  assert.strictEqual(json.action, 'noop', json.reason);
  assert.match(json.reason, /already fills the device/);
  assert.strictEqual(json.beforeBytes, GROWN);
  assert.strictEqual(await dumpe2fsBytes(loop.device), GROWN);
  assert.match(await sh('dumpe2fs', ['-h', loop.device]), /^Filesystem state:\s+clean$/m);
  await expectRejection(readFile(lockFile), { code: 'ENOENT' }, 'the lock was released');
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('voe fsresize grow stopped with SIGTERM during resize2fs: it says so on stderr, waits for resize2fs, releases the lock, then exits 143', async () => {
  const { lockDirectory, lockFile, loop, mnt, sums } = await bigUsedExt4();
  const voe = startVoe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--json',
    '--lock-dir',
    lockDirectory,
  ]);
  const result = await signalWhileResize2fsRuns(voe, lockFile, 'SIGTERM');
  assert.strictEqual(result.code, 143, result.stderr);
  assert.match(
    result.stderr,
    /^voe: SIGTERM received: stopping at the next safe point; a running grow or check tool is never stopped midway/m,
  );
  assert.match(result.stderr, /^voe: exiting after SIGTERM \(exit code 143\)$/m);
  const json = JSON.parse(result.stdout);
  assert.strictEqual(json.action, 'grown', 'the grow that was running is reported');
  assert.strictEqual(json.afterBytes, GROWN);
  await expectRejection(readFile(lockFile), { code: 'ENOENT' }, 'the lock was released');
  assert.strictEqual(await dumpe2fsBytes(loop.device), GROWN);
  assert.match(await sh('dumpe2fs', ['-h', loop.device]), /^Filesystem state:\s+clean$/m);
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('voe flexvolume expandfs stopped with SIGHUP during resize2fs: silent, waits for resize2fs, then one JSON Failure line and a non-zero exit', async () => {
  const { lockFile, loop } = await bigUsedExt4('/run/voe/fsresize');
  const voe = startVoe([
    'flexvolume',
    'expandfs',
    '{}',
    loop.device,
    '',
    String(GROWN),
    String(GiB),
  ]);
  const result = await signalWhileResize2fsRuns(voe, lockFile, 'SIGHUP');
  assert.strictEqual(result.stderr, '', 'nothing on stderr: kubelet reads it with stdout');
  assert.strictEqual(result.code, 1);
  assert.strictEqual(result.stdout.split('\n').length, 2, 'exactly one line');
  const answer = JSON.parse(result.stdout);
  assert.strictEqual(answer.status, 'Failure');
  assert.match(
    answer.message,
    /^FSRESIZE_INTERRUPTED: stopped \(SIGHUP\) after its work had finished: checked \(e2fsck -f -p \S+, exit 0: no errors\) and grew ext4/,
  );
  await expectRejection(readFile(lockFile), { code: 'ENOENT' });
  assert.strictEqual(await dumpe2fsBytes(loop.device), GROWN);
});

it('voe fsresize grow interrupted (SIGINT) while it waits for the device lock: stops at once with FSRESIZE_INTERRUPTED, exit 130, nothing changed', async () => {
  const { lockDirectory, loop } = await bigUsedExt4();
  const held = await createDeviceLock({ directory: lockDirectory }).acquire(
    await majorMinorOf(loop.device),
  );
  onCleanup(() => held());
  const voe = startVoe(['fsresize', 'grow', '--device', loop.device, '--lock-dir', lockDirectory]);
  // A waiter keeps its own complete lock file (<lock>.<token>) ready to link into place.
  const lockName = `${(await majorMinorOf(loop.device)).replace(':', '-')}.lock.`;
  await eventually(
    async () => (await readdir(lockDirectory)).some((name) => name.startsWith(lockName)),
    120_000,
    "voe's own lock file beside the held lock",
    {
      intervalMs: 20,
      giveUp: () =>
        voe.child.exitCode === null ? undefined : `voe ended instead of waiting: ${voe.stderr()}`,
    },
  );
  // The lock stays held for the whole test and voe would wait 30 minutes for it: ending at all
  // (within the test's timeout) is the stop honoured while waiting.
  voe.child.kill('SIGINT');
  const result = await voe.done;
  assert.strictEqual(result.code, 130, result.stderr);
  assert.match(
    result.stderr,
    /^voe: FSRESIZE_INTERRUPTED: stopped \(SIGINT\) while waiting for another resize of this device to finish; nothing was changed$/m,
  );
  // What happened first, then how voe ends: the closing line is the last one.
  const lines = result.stderr.trimEnd().split('\n');
  assert.strictEqual(lines.at(-1), 'voe: exiting after SIGINT (exit code 130)', result.stderr);
  assert.ok(
    lines.findIndex((line) => line.startsWith('voe: FSRESIZE_INTERRUPTED: ')) < lines.length - 1,
    result.stderr,
  );
  assert.strictEqual(result.stdout, '');
  assert.strictEqual(await dumpe2fsBytes(loop.device), GiB);
}).timeout(300_000);

/** The pid of the child of `parent` whose command name is `name`, once there is one. */
async function childNamed(parent: number, name: string): Promise<number> {
  let child: number | undefined;
  await eventually(
    async () => {
      for (const entry of await readdir('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (
          Number(fields[1]) === parent &&
          stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === name
        ) {
          child = Number(entry);
          return true;
        }
      }
      return false;
    },
    60_000,
    `a ${name} under pid ${parent}`,
    { intervalMs: 20 },
  );
  return child!;
}

it("Ctrl-C in a terminal (SIGINT to voe's whole process group) while a probe runs: the probe dies of it too, and the answer is FSRESIZE_INTERRUPTED, nothing changed (not a failure of blkid)", async () => {
  const { scratch, lockDirectory } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(128 * MiB);
  // A slow blkid, first in voe's search path, seen by voe alone: in a mount namespace of its own,
  // a directory holding it is mounted over /usr/local/sbin.
  const sbin = await scratch.directory('sbin');
  await writeFile(join(sbin, 'blkid'), '#!/bin/sh\nsleep 60\nexec /usr/sbin/blkid "$@"\n');
  await chmod(join(sbin, 'blkid'), 0o755);
  const child = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      '--',
      'sh',
      '-c',
      `${DROP_OTHER_LOOP_MOUNTS}; mount --bind "$1" /usr/local/sbin && shift && exec "$@"`,
      'sh',
      sbin,
      process.execPath,
      MAIN,
      'fsresize',
      'grow',
      '--device',
      loop.device,
      '--json',
      '--lock-dir',
      lockDirectory,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: envIgnoringUnreadableHere(), detached: true },
  );
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const closed = once(child, 'close');
  // Sent once the slow blkid script waits in its sleep (a shell still starting up may not be
  // ended by it), as a Ctrl-C during a probe that is running finds it.
  await childNamed(await childNamed(child.pid!, 'blkid'), 'sleep');
  process.kill(-child.pid!, 'SIGINT');
  const [code] = await closed;
  assert.strictEqual(code, 130, stdout + stderr);
  const { error } = JSON.parse(stdout);
  assert.strictEqual(error.code, 'FSRESIZE_INTERRUPTED', error.message);
  assert.strictEqual(
    error.message,
    `stopped (SIGINT) while blkid -p -s TYPE -s PTTYPE -s UUID -o export ${loop.device} ran, which the same signal ended (it reaches voe's whole process group or service); nothing was changed`,
  );
  assert.strictEqual(error.details.tool.signal, 'SIGINT');
  assert.match(stderr, /^voe: exiting after SIGINT \(exit code 130\)$/m);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
  assert.deepStrictEqual(await readdir(lockDirectory), [], 'the lock was released');
}).timeout(300_000);
