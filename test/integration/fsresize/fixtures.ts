import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { createDeviceLock, createExecFileRunner, createFsResizer, type FsResizer } from '../../../src/fsresize/index.js';
import { createScratch, sh, type Scratch } from '../../support/loop-device.js';
import { recordingRunner } from '../../support/recording-runner.js';

/** A scratch area and a resizer over the real tools, both released after the test. */
export async function setup(t: TestContext): Promise<{ scratch: Scratch; resizer: FsResizer; calls: string[][]; lockDirectory: string }> {
  const scratch = await createScratch();
  const lockDirectory = await mkdtemp(join(tmpdir(), 'voe-fsresize-lock-'));
  t.after(async () => {
    await scratch.cleanup();
    await rm(lockDirectory, { recursive: true, force: true });
  });
  const runner = recordingRunner(createExecFileRunner());
  const resizer = createFsResizer({ runner, lock: createDeviceLock({ directory: lockDirectory }) });
  return { scratch, resizer, calls: runner.calls, lockDirectory };
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
  return Number(/^geom\.bsize = (\d+)/m.exec(out)?.[1]) * Number(/^geom\.datablocks = (\d+)/m.exec(out)?.[1]);
}

/** btrfs device size per `btrfs filesystem show --raw`. */
export async function btrfsBytes(mountPoint: string): Promise<number> {
  const out = await sh('btrfs', ['filesystem', 'show', '--raw', mountPoint]);
  return Number(/devid\s+\d+\s+size\s+(\d+)/.exec(out)?.[1]);
}

export async function blockdevBytes(device: string): Promise<number> {
  return Number((await sh('blockdev', ['--getsize64', device])).trim());
}
