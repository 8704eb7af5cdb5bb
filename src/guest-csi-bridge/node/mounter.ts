import { realpath } from 'node:fs/promises';
import {
  visibleMountAt,
  type CommandRunner,
  type MountEntry,
  type MountTable,
} from '../../fsresize/index.js';
import { CsiError } from '../errors/csi-error.js';

/** Mounts, unmounts and formats on the node. */
export interface Mounter {
  /** The mount `path` shows now (the top one of any stacked there), or null when it is not a mount point. */
  mountAt(path: string): Promise<MountEntry | null>;
  /** mkfs.<fsType> on a blank device. */
  format(device: string, fsType: string): Promise<void>;
  /** mount -t <fsType> [-o options] <device> <target>. */
  mount(device: string, target: string, fsType: string, options: readonly string[]): Promise<void>;
  /** mount --bind <source> <target>, then read-only when asked. */
  bind(source: string, target: string, readOnly: boolean): Promise<void>;
  /** umount <target>, until nothing is mounted there. */
  unmount(target: string): Promise<void>;
}

/** mkfs arguments by filesystem: quiet, and forced for ext (a whole disk makes mke2fs ask otherwise; only blank disks are formatted). */
const MKFS_ARGS: Record<string, readonly string[]> = {
  ext2: ['-F', '-q'],
  ext3: ['-F', '-q'],
  ext4: ['-F', '-q'],
  xfs: ['-q'],
};

/** Timeout of each mount, unmount and mkfs. */
const TOOL_TIMEOUT_MS = 120_000;
/** How many mounts stacked at one path an unmount takes off before it gives up. */
const MAX_UNMOUNTS = 8;

/** The production Mounter: mount, umount and mkfs.* through `runner` (execFile with argument arrays), mounts read from `mounts`. */
export function createMounter(runner: CommandRunner, mounts: MountTable): Mounter {
  async function run(command: string, args: string[], what: string): Promise<void> {
    const result = await runner.run(command, args, { timeoutMs: TOOL_TIMEOUT_MS });
    if (result.exitCode !== 0)
      throw new CsiError(
        'CSI_MOUNT_FAILED',
        `${what}: ${command} ${args.join(' ')} exited ${result.exitCode}: ${result.stderr.trim().slice(0, 500)}`,
      );
  }

  const mountAt = async (path: string): Promise<MountEntry | null> => {
    const resolved = await realpath(path).catch(() => path);
    return visibleMountAt(mounts, resolved);
  };

  return {
    mountAt,
    async format(device, fsType) {
      const base = MKFS_ARGS[fsType] ?? [];
      await run(`mkfs.${fsType}`, [...base, device], `formatting ${device} as ${fsType}`);
    },
    async mount(device, target, fsType, options) {
      const args = [
        '-t',
        fsType,
        ...(options.length > 0 ? ['-o', options.join(',')] : []),
        device,
        target,
      ];
      await run('mount', args, `mounting ${device} at ${target}`);
    },
    async bind(source, target, readOnly) {
      await run('mount', ['--bind', source, target], `bind-mounting ${source} at ${target}`);
      if (readOnly)
        await run('mount', ['-o', 'remount,bind,ro', target], `making ${target} read-only`);
    },
    async unmount(target) {
      for (let i = 0; i < MAX_UNMOUNTS && (await mountAt(target)) !== null; i++)
        await run('umount', [target], `unmounting ${target}`);
      if ((await mountAt(target)) !== null)
        throw new CsiError(
          'CSI_MOUNT_FAILED',
          `unmounting ${target}: still a mount point after ${MAX_UNMOUNTS} unmounts`,
        );
    },
  };
}
