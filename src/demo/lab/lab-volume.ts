import { execFile } from 'node:child_process';
import { mkdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { possibleGuestSize } from './possible-guest-size.js';
import { usableSpace } from './usable-space.js';
import { VmLabError } from './vm-lab-error.js';

const run = promisify(execFile);

/** CDI's default filesystem overhead, what the lab's mirror writes for a Filesystem-mode claim. */
export const LAB_FILESYSTEM_OVERHEAD = '0.055';

/**
 * The storage behind one lab disk, standing for its PVC: Block mode, a raw file (the volume's
 * device); Filesystem mode, an XFS filesystem on a loop device over a sparse file (the volume),
 * mounted in the lab's directory, holding the disk.img the domain opens.
 */
export interface LabVolume {
  volumeMode: 'Block' | 'Filesystem';
  /** What the domain opens: the raw file (Block) or disk.img on the volume's filesystem. */
  file: string;
  /** The storage's controller step: the volume (its device) grows to `bytes` (losetup -c for a loop). */
  growDevice(bytes: bigint): Promise<void>;
  /** The node step (kubelet's NodeExpandVolume) of a Filesystem volume: xfs_growfs, online. Block: nothing. */
  growFilesystem(): Promise<void>;
  /** The device's size in bytes (Block: the raw file's). */
  deviceBytes(): Promise<bigint>;
  /** Unmounts (tried for up to 5 s) and detaches what it made (idempotent); the files go with the lab's directory. */
  release(): Promise<void>;
}

async function tool(command: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run(command, args, { encoding: 'utf8', timeout: 60_000 });
    return stdout;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `${command} ${args.join(' ')} failed: ${stderr || (error as Error).message}`,
      { cause: error },
    );
  }
}

async function sparseFile(path: string, bytes: bigint): Promise<void> {
  await writeFile(path, '');
  await truncate(path, Number(bytes));
}

/**
 * Makes the storage of disk `name` of `bytes` in `dir`. Filesystem mode: the volume's file, a
 * loop device over it (`losetup -f --show`), `mkfs.xfs` (XFS grows online; ext4 here refuses an
 * online resize2fs), mounted on `<dir>/<name>-pvc`, and disk.img there of the size KubeVirt gives
 * it at start (possibleGuestSize over the new filesystem's free space).
 */
export async function createLabVolume(
  dir: string,
  name: string,
  bytes: bigint,
  volumeMode: 'Block' | 'Filesystem',
): Promise<LabVolume> {
  if (volumeMode === 'Block') {
    const file = join(dir, `${name}.raw`);
    await sparseFile(file, bytes);
    return {
      volumeMode,
      file,
      growDevice: (size) => truncate(file, Number(size)),
      growFilesystem: async () => undefined,
      deviceBytes: async () => (await stat(file, { bigint: true })).size,
      release: async () => undefined,
    };
  }
  const backing = join(dir, `${name}.pvc`);
  const mountPoint = join(dir, `${name}-pvc`);
  await sparseFile(backing, bytes);
  const device = (await tool('losetup', ['--find', '--show', backing])).trim();
  let mounted = false;
  let attached = true;
  const release = async (): Promise<void> => {
    // QEMU may hold disk.img for a moment after `virsh destroy`: the unmount is tried again.
    for (let tries = 0; mounted && tries < 25; tries++) {
      mounted = !(await tool('umount', [mountPoint]).then(
        () => true,
        () => false,
      ));
      if (mounted) await delay(200);
    }
    mounted = false;
    if (attached) await tool('losetup', ['--detach', device]).catch(() => undefined);
    attached = false;
  };
  try {
    await tool('mkfs.xfs', ['-q', device]);
    await mkdir(mountPoint, { recursive: true });
    await tool('mount', [device, mountPoint]);
    mounted = true;
    const file = join(mountPoint, 'disk.img');
    await writeFile(file, '');
    const size = possibleGuestSize({
      capacity: bytes,
      filesystemOverhead: LAB_FILESYSTEM_OVERHEAD,
      usable: await usableSpace(file),
    });
    await truncate(file, Number(size));
    return {
      volumeMode,
      file,
      growDevice: async (size) => {
        await truncate(backing, Number(size));
        await tool('losetup', ['--set-capacity', device]);
      },
      growFilesystem: async () => {
        await tool('xfs_growfs', [mountPoint]);
      },
      deviceBytes: async () => BigInt((await tool('blockdev', ['--getsize64', device])).trim()),
      release,
    };
  } catch (error) {
    await release();
    await rm(backing, { force: true });
    throw error;
  }
}
