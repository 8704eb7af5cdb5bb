import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { BlockDeviceId, BlockDevices } from '../../../src/fsresize/index.js';
import type { DeviceUsers } from '../../../src/fsresize/model/block-devices.js';
import type { Inspection } from '../../../src/fsresize/model/inspection.js';
import { planOnceUsersSettle } from '../../../src/fsresize/plan-once-users-settle.js';

const MiB = 1024 * 1024;
const id: BlockDeviceId = { path: '/dev/sdb', realPath: '/dev/sdb', majorMinor: '8:16' };
const nobody: DeviceUsers = { openedBy: [], unreadable: [], holders: [], disk: null };
const udev: DeviceUsers = {
  ...nobody,
  openedBy: [{ pid: 412, command: '(udev-worker)', majorMinor: '8:16' }],
};
const hidden: DeviceUsers = { ...nobody, unreadable: [{ pid: 77, command: 'qemu-kvm' }] };

/** An unmounted ext4 of 64 MiB on a 256 MiB /dev/sdb, with `users` as first looked at. */
function unmountedExt4(users: DeviceUsers | null): Inspection {
  return {
    device: '/dev/sdb',
    devicePath: '/dev/sdb',
    majorMinor: '8:16',
    deviceBytes: 256 * MiB,
    deviceReadOnly: false,
    filesystem: 'ext4',
    partitionTable: null,
    filesystemBytes: 64 * MiB,
    blockBytes: 4096,
    mountPoint: null,
    mountReadOnly: false,
    mountPointStacked: false,
    mountPoints: [],
    hiddenMountPoints: [],
    unusableMountPoints: [],
    btrfs: null,
    users,
    extCheckNeeded: false,
    extErrors: false,
    extPageBytes: 4096,
    ext64bit: true,
    extBigalloc: false,
  };
}

/** BlockDevices that only answers `users`, with `answers` in turn (the last one from then on). */
function devicesAnswering(answers: DeviceUsers[]): BlockDevices & { looks: number } {
  const unused = (): never => {
    throw new Error('planOnceUsersSettle asks only who uses the device');
  };
  const devices = {
    looks: 0,
    identify: unused,
    sizeBytes: unused,
    readOnly: unused,
    read: unused,
    btrfsDevices: unused,
    hold: unused,
    async users(device: BlockDeviceId) {
      assert.deepStrictEqual(device, id);
      const answer = answers[Math.min(devices.looks, answers.length - 1)] as DeviceUsers;
      devices.looks += 1;
      return answer;
    },
  };
  return devices;
}

describe('planOnceUsersSettle: a refusal for other users of the device is looked at again', () => {
  const cases: Array<{
    title: string;
    first: DeviceUsers | null;
    later: DeviceUsers[];
    kind: 'grow' | 'refuse';
    code?: string;
    looks: number;
  }> = [
    {
      title: 'a program that had the device open for a moment (udev) is gone at the third look',
      first: udev,
      later: [udev, nobody],
      kind: 'grow',
      looks: 2,
    },
    {
      title: 'a program that keeps the device open is refused after five looks in all',
      first: udev,
      later: [udev],
      kind: 'refuse',
      code: 'FSRESIZE_DEVICE_IN_USE',
      looks: 4,
    },
    {
      title: 'nobody at the first look: no second one',
      first: nobody,
      later: [udev],
      kind: 'grow',
      looks: 0,
    },
    {
      title: 'a refusal for another reason (processes voe may not read) is not looked at again',
      first: hidden,
      later: [nobody],
      kind: 'refuse',
      code: 'FSRESIZE_PERMISSION_DENIED',
      looks: 0,
    },
    {
      title: 'users never looked for (null) are not looked for here either',
      first: null,
      later: [nobody],
      kind: 'refuse',
      code: 'FSRESIZE_DEVICE_IN_USE',
      looks: 0,
    },
  ];
  for (const c of cases) {
    it(`${c.title}: ${c.code ?? c.kind}`, async () => {
      const devices = devicesAnswering(c.later);
      const { plan, inspection } = await planOnceUsersSettle(
        devices,
        id,
        unmountedExt4(c.first),
        {},
      );
      assert.strictEqual(plan.kind, c.kind);
      if (plan.kind === 'refuse') assert.strictEqual(plan.error.code, c.code);
      assert.strictEqual(devices.looks, c.looks);
      const last = c.looks === 0 ? c.first : c.later[Math.min(c.looks, c.later.length) - 1];
      assert.strictEqual(inspection.users, last, 'the plan was made on the users seen last');
    });
  }
});
