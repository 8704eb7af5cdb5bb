/**
 * The core's error paths with the real tools on real loop devices: a grow tool that fails and a
 * grow that runs out of time both reach the caller as typed errors carrying the tool's report,
 * and leave the filesystem and its files as they were (a later grow still works).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createDeviceLock, createExecFileRunner, createFsResizer, isFsResizeError, type CommandRunner,
} from '../../../src/fsresize/index.js';
import { MiB, readChecksums } from '../../support/loop-device.js';
import { dumpe2fsBytes, mountedXfs, usedExt4, xfsBytes } from './fixtures.js';

function resizerWith(lockDirectory: string, runner: CommandRunner, growMs?: number) {
  return createFsResizer({
    runner, lock: createDeviceLock({ directory: lockDirectory }), ...(growMs === undefined ? {} : { timeouts: { growMs } }),
  });
}

test('a grow tool that exits non-zero is FSRESIZE_TOOL_FAILED with its exit code and stderr; nothing changed', async (t) => {
  const { loop, mnt, sums, lockDirectory } = await usedExt4(t);
  const real = createExecFileRunner();
  // resize2fs itself, given a size it rejects: a real failure, with resize2fs's own message.
  const failing: CommandRunner = { run: (command, args, options) => real.run(command, command === 'resize2fs' ? [...args, 'not-a-size'] : args, options) };
  const error = await resizerWith(lockDirectory, failing).grow(loop.device).then(() => undefined, (e: unknown) => e);
  assert.ok(isFsResizeError(error), String(error));
  assert.equal(error.code, 'FSRESIZE_TOOL_FAILED');
  const tool = error.details['tool'] as { tool: string; exitCode: number; stderr: string };
  assert.equal(tool.tool, 'resize2fs');
  assert.notEqual(tool.exitCode, 0);
  assert.match(tool.stderr, /not-a-size/);
  assert.match(error.message, /not-a-size/);
  assert.equal(await dumpe2fsBytes(loop.device), 64 * MiB);
  const after = await resizerWith(lockDirectory, real).grow(loop.device);
  assert.equal(after.action, 'grown');
  await loop.mount(mnt);
  assert.deepEqual(await readChecksums(mnt, sums.keys()), sums);
});

test('a grow that runs out of time is FSRESIZE_TIMEOUT naming the tool; the filesystem is intact and grows later', async (t) => {
  const { lockDirectory, loop, mnt, sums } = await mountedXfs(t, { growTo: 1024 * MiB });
  // 1 ms: less than starting any process takes, so the core's grow timeout always fires.
  const error = await resizerWith(lockDirectory, createExecFileRunner(), 1).grow(loop.device).then(() => undefined, (e: unknown) => e);
  assert.ok(isFsResizeError(error), String(error));
  assert.equal(error.code, 'FSRESIZE_TIMEOUT');
  assert.match(error.message, /^xfs_growfs -d \S+ did not finish within 1 ms and was stopped/);
  assert.deepEqual(await readChecksums(mnt, sums.keys()), sums);
  // xfs grows in one transaction: the stopped call left it either as it was or fully grown
  // (the signal can arrive after the kernel's grow), and the retry the message asks for fills the device.
  assert.ok([320 * MiB, 1024 * MiB].includes(await xfsBytes(mnt)));
  const result = await resizerWith(lockDirectory, createExecFileRunner()).grow(loop.device);
  assert.ok(result.action === 'grown' || /already fills the device/.test(result.reason), result.reason);
  assert.equal(await xfsBytes(mnt), 1024 * MiB);
  assert.deepEqual(await readChecksums(mnt, sums.keys()), sums);
});
