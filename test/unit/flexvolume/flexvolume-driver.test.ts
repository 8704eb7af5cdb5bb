import { it } from 'mocha';
import { assert } from 'chai';
import { handleFlexVolumeCall } from '../../../src/flexvolume/index.js';
import type { FsResizer } from '../../../src/fsresize/index.js';
import { FsResizeError } from '../../../src/fsresize/model/fsresize-error.js';
import type { GrowOptions, Inspection } from '../../../src/fsresize/model/inspection.js';
import { fakeMountTable } from '../../support/fsresize/fake-fsresize-ports.js';

/** A resizer that records what the driver asked for (the driver's own port; the real core is tested on loop devices). */
function recorder(
  deviceBytes: number,
  fail?: FsResizeError,
): FsResizer & { grows: Array<[string, GrowOptions | undefined]> } {
  const grows: Array<[string, GrowOptions | undefined]> = [];
  return {
    grows,
    async inspect(device) {
      return { device, deviceBytes } as Inspection;
    },
    needsResize: () => true,
    async grow(device, options) {
      grows.push([device, options]);
      if (fail) throw fail;
      return {
        action: 'grown',
        reason: 'grew ext4',
        device,
        filesystem: 'ext4',
        mountPoint: null,
        deviceBytes,
        beforeBytes: 1,
        afterBytes: 2,
        dryRun: false,
        command: null,
        precheck: null,
      };
    },
  };
}
const mounts = fakeMountTable(
  '97 27 7:3 / /var/lib/kubelet/pods/p/volumes/v rw - ext4 /dev/loop3 rw\n',
);
/** The device nodes of this fake node, by number (production: deviceNodeOf, from sysfs and /dev). */
const nodes: Record<string, string> = {
  '7:3': '/dev/loop3',
  '7:4': '/dev/loop4',
  '8:16': '/dev/sdb',
};
const deviceNode = async (majorMinor: string): Promise<string | null> => nodes[majorMinor] ?? null;

it('expandfs takes <json> <device path> <device mount path> <new size> <old size>', async () => {
  const resizer = recorder(2048);
  const answer = await handleFlexVolumeCall(
    ['expandfs', '{}', '/dev/sdb', '/mnt/global', '2048', '1024'],
    { resizer, deviceNode, mounts },
  );
  assert.deepStrictEqual(answer, {
    response: { status: 'Success', message: 'grew ext4' },
    exitCode: 0,
  });
  assert.deepStrictEqual(resizer.grows, [
    [
      '/dev/sdb',
      {
        mountPath: '/mnt/global',
        requiredDeviceBytes: 2048,
        readOnlyMount: 'refuse',
        readOnlyDevice: 'refuse',
      },
    ],
  ]);
});

it('expandfs without a device path uses the device mounted at the mount path', async () => {
  const resizer = recorder(2048);
  await handleFlexVolumeCall(
    ['expandfs', '{}', '', '/var/lib/kubelet/pods/p/volumes/v', '2048', '1024'],
    { resizer, deviceNode, mounts },
  );
  assert.deepStrictEqual(resizer.grows, [
    [
      '/dev/loop3',
      {
        mountPath: '/var/lib/kubelet/pods/p/volumes/v',
        requiredDeviceBytes: 2048,
        readOnlyMount: 'refuse',
        readOnlyDevice: 'refuse',
      },
    ],
  ]);
  const none = await handleFlexVolumeCall(['expandfs', '{}', '', '/elsewhere', '2048', '1024'], {
    resizer,
    deviceNode,
    mounts,
  });
  assert.deepStrictEqual(none, {
    response: {
      status: 'Failure',
      message: 'FLEXVOLUME_NO_DEVICE: expandfs: no block device is mounted at /elsewhere',
    },
    exitCode: 1,
  });
});

it('expandfs without a device path normalises the mount path as voe fsresize grow --mount does (a trailing slash, ..)', async () => {
  for (const path of [
    '/var/lib/kubelet/pods/p/volumes/v/',
    '/var/lib/kubelet/pods/p/volumes/x/../v',
    '/var/lib/kubelet/pods/p/volumes//v',
  ]) {
    const resizer = recorder(2048);
    const answer = await handleFlexVolumeCall(['expandfs', '{}', '', path, '2048', '1024'], {
      resizer,
      deviceNode,
      mounts,
    });
    assert.strictEqual(answer.exitCode, 0, `${path}: ${JSON.stringify(answer)}`);
    assert.deepStrictEqual(resizer.grows, [
      [
        '/dev/loop3',
        {
          mountPath: path,
          requiredDeviceBytes: 2048,
          readOnlyMount: 'refuse',
          readOnlyDevice: 'refuse',
        },
      ],
    ]);
  }
});

it('expandfs without a device path uses the filesystem the mount path shows, not one hidden under it', async () => {
  const resizer = recorder(2048);
  const stacked = fakeMountTable(
    [
      '97 27 7:3 / /var/lib/kubelet/pods/p/volumes/v rw - ext4 /dev/loop3 rw',
      '98 97 7:4 / /var/lib/kubelet/pods/p/volumes/v rw - ext4 /dev/loop4 rw',
    ].join('\n'),
  );
  await handleFlexVolumeCall(
    ['expandfs', '{}', '', '/var/lib/kubelet/pods/p/volumes/v', '2048', '1024'],
    { resizer, deviceNode, mounts: stacked },
  );
  assert.deepStrictEqual(resizer.grows, [
    [
      '/dev/loop4',
      {
        mountPath: '/var/lib/kubelet/pods/p/volumes/v',
        requiredDeviceBytes: 2048,
        readOnlyMount: 'refuse',
        readOnlyDevice: 'refuse',
      },
    ],
  ]);
  const hiddenFirst = fakeMountTable(
    ['98 27 7:4 / /v rw - ext4 /dev/loop4 rw', '97 27 7:3 / /v rw - ext4 /dev/loop3 rw'].join('\n'),
    () => 98,
  );
  await handleFlexVolumeCall(['expandfs', '{}', '', '/v', '2048', '1024'], {
    resizer,
    deviceNode,
    mounts: hiddenFirst,
  });
  assert.deepStrictEqual(resizer.grows[1], [
    '/dev/loop4',
    {
      mountPath: '/v',
      requiredDeviceBytes: 2048,
      readOnlyMount: 'refuse',
      readOnlyDevice: 'refuse',
    },
  ]);
});

it('expandfs without a device path finds the device by its number, not by the name it was mounted under', async () => {
  // Mounted through a name that is gone or now names another device: mountinfo keeps the old name.
  const renamed = fakeMountTable('97 27 8:16 / /v rw - ext4 /var/lib/old/dev-name rw\n');
  const resizer = recorder(2048);
  const answer = await handleFlexVolumeCall(['expandfs', '{}', '', '/v', '2048', '1024'], {
    resizer,
    deviceNode,
    mounts: renamed,
  });
  assert.strictEqual(answer.exitCode, 0, JSON.stringify(answer));
  assert.deepStrictEqual(resizer.grows, [
    [
      '/dev/sdb',
      {
        mountPath: '/v',
        requiredDeviceBytes: 2048,
        readOnlyMount: 'refuse',
        readOnlyDevice: 'refuse',
      },
    ],
  ]);
  const noNode = await handleFlexVolumeCall(['expandfs', '{}', '', '/v', '2048', '1024'], {
    resizer,
    deviceNode: async () => null,
    mounts: renamed,
  });
  assert.deepStrictEqual(noNode, {
    response: {
      status: 'Failure',
      message:
        'FLEXVOLUME_NO_DEVICE: expandfs: block device 8:16 (ext4) is mounted at /v, but this node has no device node for it in /dev; pass the device path',
    },
    exitCode: 1,
  });
  assert.strictEqual(resizer.grows.length, 1);
});

it('expandfs without a device path takes a btrfs (anonymous device number) by its source, and names what a non-device mount shows', async () => {
  const anonymous = fakeMountTable(
    ['97 27 0:45 / /b rw - btrfs /dev/loop5 rw', '98 27 0:46 / /t rw - tmpfs tmpfs rw'].join('\n'),
  );
  const resizer = recorder(2048);
  await handleFlexVolumeCall(['expandfs', '{}', '', '/b', '2048', '1024'], {
    resizer,
    deviceNode: async () => {
      throw new Error('not asked for btrfs');
    },
    mounts: anonymous,
  });
  assert.deepStrictEqual(resizer.grows, [
    [
      '/dev/loop5',
      {
        mountPath: '/b',
        requiredDeviceBytes: 2048,
        readOnlyMount: 'refuse',
        readOnlyDevice: 'refuse',
      },
    ],
  ]);
  const tmpfs = await handleFlexVolumeCall(['expandfs', '{}', '', '/t', '2048', '1024'], {
    resizer,
    deviceNode,
    mounts: anonymous,
  });
  assert.deepStrictEqual(tmpfs, {
    response: {
      status: 'Failure',
      message:
        'FLEXVOLUME_NO_DEVICE: expandfs: no block device is mounted at /t (it shows tmpfs from "tmpfs")',
    },
    exitCode: 1,
  });
});

it('expandfs asked to stop while growing answers a FSRESIZE_INTERRUPTED Failure saying what was done, and passes the stop on', async () => {
  const resizer = recorder(2048);
  const controller = new AbortController();
  const grow = resizer.grow.bind(resizer);
  resizer.grow = async (device, options) => {
    controller.abort('SIGTERM');
    return grow(device, options);
  };
  const answer = await handleFlexVolumeCall(['expandfs', '{}', '/dev/sdb', '/m', '2048', '1024'], {
    resizer,
    deviceNode,
    mounts,
    signal: controller.signal,
  });
  assert.deepStrictEqual(answer, {
    response: {
      status: 'Failure',
      message: 'FSRESIZE_INTERRUPTED: stopped (SIGTERM) after its work had finished: grew ext4',
    },
    exitCode: 1,
  });
  assert.strictEqual(resizer.grows[0]?.[1]?.signal, controller.signal);
});

it('expandfs reports core errors as Failure "<code>: <message>" with exit code 1', async () => {
  const resizer = recorder(2048, new FsResizeError('FSRESIZE_TOOL_FAILED', 'resize2fs said no'));
  const answer = await handleFlexVolumeCall(['expandfs', '{}', '/dev/sdb', '', '2048', '1024'], {
    resizer,
    deviceNode,
    mounts,
  });
  assert.deepStrictEqual(answer, {
    response: { status: 'Failure', message: 'FSRESIZE_TOOL_FAILED: resize2fs said no' },
    exitCode: 1,
  });
  assert.deepStrictEqual(resizer.grows, [
    ['/dev/sdb', { requiredDeviceBytes: 2048, readOnlyMount: 'refuse', readOnlyDevice: 'refuse' }],
  ]);
});

it('expandfs asks the core to grow only a device that shows the new size (checked under the device lock), and inspects nothing itself', async () => {
  const resizer = recorder(
    1024 * 1024,
    new FsResizeError(
      'FSRESIZE_DEVICE_TOO_SMALL',
      '/dev/sdb is 1048576 bytes, less than the requested 2097152',
    ),
  );
  resizer.inspect = async () => {
    throw new Error("the driver must not inspect outside the core's lock");
  };
  const answer = await handleFlexVolumeCall(
    ['expandfs', '{}', '/dev/sdb', '/m', String(2 * 1024 * 1024), String(1024 * 1024)],
    { resizer, deviceNode, mounts },
  );
  assert.deepStrictEqual(answer, {
    response: {
      status: 'Failure',
      message:
        'FSRESIZE_DEVICE_TOO_SMALL: /dev/sdb is 1048576 bytes, less than the requested 2097152',
    },
    exitCode: 1,
  });
  assert.deepStrictEqual(resizer.grows, [
    [
      '/dev/sdb',
      {
        mountPath: '/m',
        requiredDeviceBytes: 2 * 1024 * 1024,
        readOnlyMount: 'refuse',
        readOnlyDevice: 'refuse',
      },
    ],
  ]);
});

it('expandvolume and argument validation', async () => {
  const resizer = recorder(0);
  assert.deepStrictEqual(
    await handleFlexVolumeCall(['expandvolume', '{"a":"b"}', '/m', '10', '5'], {
      resizer,
      deviceNode,
      mounts,
    }),
    { response: { status: 'Success', volumeNewSize: 10 }, exitCode: 0 },
  );
  assert.match(
    JSON.stringify(
      await handleFlexVolumeCall(['expandvolume', 'not json', '/m', '10', '5'], {
        resizer,
        deviceNode,
        mounts,
      }),
    ),
    /not valid JSON/,
  );
  assert.match(
    JSON.stringify(
      await handleFlexVolumeCall(['expandvolume', '{}', '/m', '5', '10'], {
        resizer,
        deviceNode,
        mounts,
      }),
    ),
    /shrinking/,
  );
  assert.match(
    JSON.stringify(
      await handleFlexVolumeCall(['expandfs', '{}', '/dev/sdb', '/m'], {
        resizer,
        deviceNode,
        mounts,
      }),
    ),
    /new size must be a size in bytes, got nothing/,
  );
  // Every Failure of the driver's own starts with its code, as the core's do.
  const invalid = async (args: string[]) =>
    (
      (await handleFlexVolumeCall(args, { resizer, deviceNode, mounts })).response as {
        message: string;
      }
    ).message;
  assert.match(
    await invalid(['expandvolume']),
    /^FLEXVOLUME_INVALID_CALL: expandvolume: missing the JSON options argument$/,
  );
  assert.match(
    await invalid(['expandvolume', '{}', '/x', '-5', '1']),
    /^FLEXVOLUME_INVALID_CALL: expandvolume: new size must be a size in bytes, got "-5"$/,
  );
  assert.match(
    await invalid(['expandvolume', '{}', '/x', '99999999999999999999', '1']),
    /^FLEXVOLUME_INVALID_CALL: expandvolume: new size 99999999999999999999 is too large: sizes up to 2\^53-1 bytes \(8 PiB\) are handled exactly$/,
  );
  assert.match(
    await invalid(['expandvolume', '{}', '/m', '5', '10']),
    /^FLEXVOLUME_INVALID_CALL: expandvolume: shrinking/,
  );
  assert.match(
    await invalid(['expandfs', '{}', '', '', '10', '5']),
    /^FLEXVOLUME_INVALID_CALL: expandfs: kubelet passed neither a device path nor a mount path$/,
  );
  assert.deepStrictEqual(
    await handleFlexVolumeCall(['mountdevice', '{}'], { resizer, deviceNode, mounts }),
    { response: { status: 'Not supported' }, exitCode: 1 },
  );
});

it('an error the core does not raise itself is still a Failure with a code: FSRESIZE_UNEXPECTED_ERROR', async () => {
  const resizer = recorder(2048);
  resizer.grow = async () => {
    throw Object.assign(new Error("EMFILE: too many open files, open '/tmp/x'"), {
      code: 'EMFILE',
      syscall: 'open',
      path: '/tmp/x',
    });
  };
  const answer = await handleFlexVolumeCall(['expandfs', '{}', '/dev/sdb', '/m', '2048', '1024'], {
    resizer,
    deviceNode,
    mounts,
  });
  assert.strictEqual(answer.exitCode, 1);
  assert.strictEqual(answer.response.status, 'Failure');
  assert.match(
    (answer.response as { message: string }).message,
    /^FSRESIZE_UNEXPECTED_ERROR: unexpected error: Error: EMFILE: too many open files, open '\/tmp\/x' — voe did not expect this failure, so it cannot say whether anything was changed/,
  );
});
