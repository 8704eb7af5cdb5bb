import { assert } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDeviceLock,
  createExecFileRunner,
  createFsResizer,
  type FsResizer,
} from '../../../src/fsresize/index.js';
import {
  createScratch,
  MiB,
  readChecksums,
  sh,
  writeChecksummedFiles,
  type LoopDevice,
  type Scratch,
} from './loop-device.js';
import { onCleanup } from '../cleanup.js';
import { growCalls, recordingRunner } from './recording-runner.js';
import { unreadablePolicyHere } from '../unreadable-here.js';

/** A scratch area and a resizer over the real tools, both released after the test. */
export async function setup(): Promise<{
  scratch: Scratch;
  resizer: FsResizer;
  calls: string[][];
  lockDirectory: string;
}> {
  const scratch = await createScratch();
  const lockDirectory = await mkdtemp(join(tmpdir(), 'voe-fsresize-lock-'));
  onCleanup(async () => {
    try {
      await scratch.cleanup();
    } finally {
      // Also when the scratch area could not be released (its error is still reported).
      await rm(lockDirectory, { recursive: true, force: true });
    }
  });
  const runner = recordingRunner(createExecFileRunner());
  const resizer = createFsResizer({
    runner,
    lock: createDeviceLock({ directory: lockDirectory }),
    unreadableProcesses: unreadablePolicyHere,
  });
  return { scratch, resizer, calls: runner.calls, lockDirectory };
}

/**
 * A 64 MiB ext4 that a workload used (files written while mounted, then unmounted), on a device
 * grown to `growTo` bytes; `beforeGrowing` runs between the unmount and the growth.
 */
export async function usedExt4(
  options: {
    files?: number;
    growTo?: number;
    beforeGrowing?: (loop: LoopDevice, mnt: string) => Promise<unknown>;
  } = {},
) {
  const context = await setup();
  const loop = await context.scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  const mnt = await context.scratch.directory('mnt');
  await loop.mount(mnt);
  const sums = await writeChecksummedFiles(mnt, options.files);
  await loop.unmount(mnt);
  await options.beforeGrowing?.(loop, mnt);
  await loop.growBacking(options.growTo ?? 256 * MiB);
  return { ...context, loop, mnt, sums };
}

/**
 * A 320 MiB xfs mounted at `mountName` with `files` checksummed files, on a device then grown to
 * `growTo` bytes; `beforeBytes` is the filesystem's size before the growth.
 */
export async function mountedXfs(options: { growTo: number; files?: number; mountName?: string }) {
  const context = await setup();
  const loop = await context.scratch.attach(320 * MiB);
  await sh('mkfs.xfs', ['-q', loop.device]);
  const mnt = await context.scratch.directory(options.mountName ?? 'mnt');
  await loop.mount(mnt);
  const sums = await writeChecksummedFiles(mnt, options.files);
  const beforeBytes = await xfsBytes(mnt);
  await loop.growBacking(options.growTo);
  return { ...context, loop, mnt, sums, beforeBytes };
}

/** ext size per dumpe2fs -h (Block count x Block size), independent of the core's reader. */
export async function dumpe2fsBytes(device: string): Promise<number> {
  const out = await sh('dumpe2fs', ['-h', device]);
  const count = Number(/^Block count:\s+(\d+)/m.exec(out)?.[1]);
  const size = Number(/^Block size:\s+(\d+)/m.exec(out)?.[1]);
  return count * size;
}

/** xfs data size per xfs_io -c statfs. */
export async function xfsBytes(mountPoint: string): Promise<number> {
  const out = await sh('xfs_io', ['-c', 'statfs', mountPoint]);
  return (
    Number(/^geom\.bsize = (\d+)/m.exec(out)?.[1]) *
    Number(/^geom\.datablocks = (\d+)/m.exec(out)?.[1])
  );
}

/** btrfs device size per `btrfs filesystem show --raw`. */
export async function btrfsBytes(mountPoint: string): Promise<number> {
  const out = await sh('btrfs', ['filesystem', 'show', '--raw', mountPoint]);
  return Number(/devid\s+\d+\s+size\s+(\d+)/.exec(out)?.[1]);
}

export async function blockdevBytes(device: string): Promise<number> {
  return Number((await sh('blockdev', ['--getsize64', device])).trim());
}

/**
 * After what was in the way is gone: `resizer.grow(loop)` grows the ext4 of usedExt4 to 256 MiB
 * with one grow call, and every file written before reads back with its checksum.
 */
export async function grownOnceFree(
  resizer: FsResizer,
  calls: string[][],
  loop: LoopDevice,
  mnt: string,
  sums: Map<string, string>,
): Promise<void> {
  const result = await resizer.grow(loop.device);
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.strictEqual(await dumpe2fsBytes(loop.device), 256 * MiB);
  assert.strictEqual(growCalls(calls), 1);
  await loop.mount(mnt);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
}
