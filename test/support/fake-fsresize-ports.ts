import {
  createDeviceLock, createFsResizer, parseMountinfo, type BlockDevices, type CommandResult, type CommandRunner, type FsResizer, type RunOptions,
} from '../../src/fsresize/index.js';

/** What the fake node holds: one device per path, what its tools answer, what is mounted. */
export interface FakeNode {
  /** Device path -> facts; realPath defaults to the path. */
  devices: Record<string, { majorMinor: string; bytes: number; readOnly?: boolean; realPath?: string; superblock?: Uint8Array }>;
  /** Answers a tool call; undefined means "exit 0, no output". */
  tool?: (command: string, args: readonly string[]) => Partial<CommandResult> | undefined;
  /** /proc/self/mountinfo text. */
  mountinfo?: string;
}

/** A resizer over fake ports (no process, no device, no mount): for the core's own logic. */
export function fakeResizer(node: FakeNode): FsResizer & { calls: string[][]; runOptions: RunOptions[] } {
  const calls: string[][] = [];
  const runOptions: RunOptions[] = [];
  const runner: CommandRunner = {
    async run(command, args, options = {}) {
      calls.push([command, ...args]);
      runOptions.push(options);
      return { exitCode: 0, stdout: '', stderr: '', ...(node.tool?.(command, args) ?? {}) };
    },
  };
  const fact = (path: string) => {
    const device = node.devices[path];
    if (device === undefined) throw new Error(`fake node has no device ${path}`);
    return device;
  };
  const devices: BlockDevices = {
    async identify(path) {
      const device = fact(path);
      return { path, realPath: device.realPath ?? path, majorMinor: device.majorMinor };
    },
    async sizeBytes(id) { return fact(id.path).bytes; },
    async readOnly(id) { return fact(id.path).readOnly === true; },
    async read(id, offset, length) {
      const superblock = fact(id.path).superblock ?? new Uint8Array(0);
      return offset === 1024 ? superblock.subarray(0, length) : new Uint8Array(0);
    },
    async hold() { return async () => undefined; },
  };
  const mounts = { list: async () => parseMountinfo(node.mountinfo ?? '') };
  const resizer = createFsResizer({ runner, devices, mounts, lock: createDeviceLock() });
  return Object.assign(resizer, { calls, runOptions });
}
