import {
  createDeviceLock,
  createFsResizer,
  type BlockDevices,
  type CommandRunner,
  type FsResizer,
  type MountTable,
} from '../../../src/fsresize/index.js';
import type { DeviceUsers } from '../../../src/fsresize/model/block-devices.js';
import type { CommandResult, RunOptions } from '../../../src/fsresize/model/command-runner.js';
import { parseMountinfo } from '../../../src/fsresize/parse/parse-mountinfo.js';

/**
 * A MountTable over mountinfo text. A path shows the mount listed last at it (the kernel lists a
 * mount after the one it was mounted over), unless `visible` says otherwise (`call` counts the
 * questions about that path, from 1).
 */
export function fakeMountTable(
  mountinfo: string,
  visible?: (path: string, call: number) => number | null,
): MountTable {
  const calls = new Map<string, number>();
  return {
    list: async () => parseMountinfo(mountinfo),
    async visibleMountId(path) {
      const call = (calls.get(path) ?? 0) + 1;
      calls.set(path, call);
      if (visible) return visible(path, call);
      return (
        parseMountinfo(mountinfo)
          .filter((m) => m.mountPoint === path)
          .at(-1)?.mountId ?? null
      );
    },
  };
}

/** What the fake node holds: one device per path, what its tools answer, what is mounted. */
export interface FakeNode {
  /** Device path -> facts; realPath defaults to the path. */
  devices: Record<
    string,
    {
      majorMinor: string;
      bytes: number;
      readOnly?: boolean;
      realPath?: string;
      superblock?: Uint8Array;
    }
  >;
  /** Answers a tool call; undefined means "exit 0, no output". */
  tool?: (command: string, args: readonly string[]) => Partial<CommandResult> | undefined;
  /** /proc/self/mountinfo text. */
  mountinfo?: string;
  /** Which mount a path shows (see fakeMountTable). */
  visible?: (path: string, call: number) => number | null;
  /** Mounted btrfs filesystems: fsid -> its devices' "major:minor". */
  btrfs?: Record<string, string[]>;
  /** Who else uses a device (BlockDevices.users); `call` counts the questions about that device, from 1; `skipPids` as the core passed it. Default: nobody. */
  users?: (path: string, call: number, skipPids: readonly number[]) => DeviceUsers;
  /** FsResizerOptions.pageBytes; default the system's. */
  pageBytes?: number;
}

/** A resizer over fake ports (no process, no device, no mount): for the core's own logic. */
export function fakeResizer(
  node: FakeNode,
): FsResizer & { calls: string[][]; runOptions: RunOptions[] } {
  const calls: string[][] = [];
  const runOptions: RunOptions[] = [];
  const runner: CommandRunner = {
    async run(command, args, options = {}) {
      calls.push([command, ...args]);
      runOptions.push(options);
      options.onSpawn?.(1000 + calls.length); // a pid per call, as a spawned tool gets
      return { exitCode: 0, stdout: '', stderr: '', ...(node.tool?.(command, args) ?? {}) };
    },
  };
  const fact = (path: string) => {
    const device = node.devices[path];
    if (device === undefined) throw new Error(`fake node has no device ${path}`);
    return device;
  };
  const userCalls = new Map<string, number>();
  const devices: BlockDevices = {
    async identify(path) {
      const device = fact(path);
      return { path, realPath: device.realPath ?? path, majorMinor: device.majorMinor };
    },
    async sizeBytes(id) {
      return fact(id.path).bytes;
    },
    async readOnly(id) {
      return fact(id.path).readOnly === true;
    },
    async read(id, offset, length) {
      const superblock = fact(id.path).superblock ?? new Uint8Array(0);
      return offset === 1024 ? superblock.subarray(0, length) : new Uint8Array(0);
    },
    async btrfsDevices(fsid) {
      return node.btrfs?.[fsid] ?? null;
    },
    async hold() {
      return async () => undefined;
    },
    async users(id, options = {}) {
      const call = (userCalls.get(id.path) ?? 0) + 1;
      userCalls.set(id.path, call);
      return (
        node.users?.(id.path, call, [...(options.skipPids ?? [])]) ?? {
          openedBy: [],
          unreadable: [],
          holders: [],
          disk: null,
        }
      );
    },
  };
  const mounts = fakeMountTable(node.mountinfo ?? '', node.visible);
  const resizer = createFsResizer({
    runner,
    devices,
    mounts,
    lock: createDeviceLock(),
    ...(node.pageBytes === undefined ? {} : { pageBytes: node.pageBytes }),
  });
  return Object.assign(resizer, { calls, runOptions });
}
