import { it } from 'mocha';
import { assert } from 'chai';
import type { LoopBacking } from '../../../../src/fsresize/model/block-devices.js';
import type { Inspection } from '../../../../src/fsresize/model/inspection.js';
import { needsResize } from '../../../../src/fsresize/plan/needs-resize.js';
import { DEVICE_SIZE_SLACK_BYTES, planGrow } from '../../../../src/fsresize/plan/plan-grow.js';

const MiB = 1024 * 1024;

function inspection(overrides: Partial<Inspection> = {}): Inspection {
  return {
    device: '/dev/sdb',
    devicePath: '/dev/sdb',
    majorMinor: '8:16',
    deviceBytes: 200 * MiB,
    deviceReadOnly: false,
    filesystem: 'ext4',
    partitionTable: null,
    filesystemBytes: 100 * MiB,
    blockBytes: 4096,
    mountPoint: null,
    mountReadOnly: false,
    mountPointStacked: false,
    mountPoints: [],
    hiddenMountPoints: [],
    unusableMountPoints: [],
    btrfs: null,
    users: { openedBy: [], unreadable: [], holders: [], disk: null },
    ...overrides,
  };
}

it('needsResize: only when the device exceeds the filesystem by more than one block', () => {
  assert.isTrue(needsResize(inspection()));
  assert.isFalse(needsResize(inspection({ deviceBytes: 100 * MiB + 4096 })));
  assert.isTrue(needsResize(inspection({ deviceBytes: 100 * MiB + 4097 })));
  assert.isFalse(needsResize(inspection({ deviceBytes: 50 * MiB })));
  assert.isFalse(needsResize(inspection({ filesystem: 'vfat' })));
  assert.isFalse(needsResize(inspection({ filesystemBytes: null })));
});

it('needsResize and planGrow for ext: the size resize2fs can reach is the device rounded down to whole pages; a filesystem that has it is a no-op saying why', () => {
  // A 1 KiB-block ext4 on a device 3 KiB past a page boundary: resize2fs (page 4 KiB) can never use those 3 KiB.
  const onePage = {
    filesystem: 'ext4',
    blockBytes: 1024,
    filesystemBytes: 100 * MiB,
    deviceBytes: 100 * MiB + 3072,
    extPageBytes: 4096,
  };
  for (const mountPoint of [null, '/m']) {
    assert.isFalse(needsResize(inspection({ ...onePage, mountPoint })));
    const plan = planGrow(inspection({ ...onePage, mountPoint, extCheckNeeded: true }));
    assert.strictEqual(plan.kind, 'noop', 'no grow, and no check before one');
    assert.match(
      noop(plan),
      /^ext4 on \/dev\/sdb already has the size resize2fs can reach \(.*: resize2fs grows it to a whole number of 4096-byte pages, so the last 3072 bytes of the device stay unused\): nothing to grow$/,
    );
  }
  for (const filesystem of ['ext2', 'ext3'] as const)
    assert.strictEqual(planGrow(inspection({ ...onePage, filesystem })).kind, 'noop', filesystem);
  assert.isTrue(
    needsResize(inspection({ ...onePage, deviceBytes: 100 * MiB + 4096 })),
    'a whole page more: grown',
  );
  assert.isTrue(
    needsResize(inspection({ ...onePage, extPageBytes: 1024 })),
    'a page no larger than the block: whole blocks',
  );
  assert.isTrue(
    needsResize(inspection({ ...onePage, filesystem: 'xfs', mountPoint: '/m' })),
    'xfs uses every whole block',
  );
  // The growth said is to the size resize2fs reaches, not to the device's.
  const grow = planGrow(
    inspection({
      filesystem: 'ext4',
      blockBytes: 4096,
      filesystemBytes: 50 * MiB,
      deviceBytes: 64 * MiB + 61440,
      extPageBytes: 65536,
    }),
  );
  assert.ok(grow.kind === 'grow');
  assert.strictEqual(grow.reason, 'grow ext4 on /dev/sdb from 50.0 MiB to 64.0 MiB offline');
});

it('ext without the 64bit feature is refused a size beyond 2^32-1 blocks, mounted or not, before any check or tool (FSRESIZE_EXT_32BIT_LIMIT): resize2fs would refuse it on every retry', () => {
  const TiB = 1024 * 1024 * MiB;
  const limited = {
    filesystem: 'ext4',
    blockBytes: 4096,
    filesystemBytes: 1024 * MiB,
    deviceBytes: 17 * TiB,
    ext64bit: false,
    extPageBytes: 4096,
    devicePath: '/dev/sdc',
  };
  for (const [mountPoint, extCheckNeeded] of [
    [null, false],
    [null, true],
    ['/m', false],
  ] as const) {
    const plan = planGrow(inspection({ ...limited, mountPoint, extCheckNeeded }));
    assert.strictEqual(code(plan), 'FSRESIZE_EXT_32BIT_LIMIT', `${mountPoint} ${extCheckNeeded}`);
    assert.strictEqual(
      plan.kind === 'refuse' ? plan.error.message : '',
      'ext4 on /dev/sdb cannot grow to 17.0 TiB: without the 64bit feature it cannot address more than 17592186040320 bytes (16.0 TiB; 2^32-1 blocks of 4096 bytes), ' +
        'and resize2fs refuses to grow it further ("New size too large to be expressed in 32 bits"); nothing was changed — convert it to 64bit offline (unmounted: e2fsck -f /dev/sdc, ' +
        'then resize2fs -b /dev/sdc) and retry, or keep the volume at or below 17592186044416 bytes (16.0 TiB)',
    );
  }
  const ext3 = planGrow(inspection({ ...limited, filesystem: 'ext3' }));
  assert.match(
    ext3.kind === 'refuse' ? ext3.error.message : '',
    /resize2fs -b \/dev\/sdc \(resize2fs -b needs the extents feature: tune2fs -O extents first, which makes it ext4\)/,
  );
  // The size resize2fs reaches counts, not the device's: with 1 KiB blocks, 2^32 of them are 4 TiB.
  assert.strictEqual(
    code(planGrow(inspection({ ...limited, blockBytes: 1024, deviceBytes: 4 * TiB + 4096 }))),
    'FSRESIZE_EXT_32BIT_LIMIT',
    'a page past 2^32 blocks',
  );
  assert.strictEqual(
    planGrow(inspection({ ...limited, blockBytes: 1024, deviceBytes: 4 * TiB + 3072 })).kind,
    'grow',
    '3 blocks past 2^32, rounded down to whole pages: 2^32, which resize2fs takes down to 2^32-1',
  );
  // Up to 2^32 blocks: resize2fs grows it to 2^32-1 blocks ("Take 16T down to 2^32-1 blocks"); a filesystem there is grown.
  const exactly = planGrow(inspection({ ...limited, deviceBytes: 16 * TiB }));
  assert.ok(exactly.kind === 'grow');
  assert.match(exactly.reason, /^grow ext4 on \/dev\/sdb from 1\.0 GiB to 16\.0 TiB offline$/);
  assert.strictEqual(
    planGrow(inspection({ ...limited, filesystemBytes: 16 * TiB - 4096, deviceBytes: 16 * TiB }))
      .kind,
    'noop',
  );
  assert.strictEqual(
    code(
      planGrow(
        inspection({ ...limited, filesystemBytes: 16 * TiB - 4096, deviceBytes: 16 * TiB + 4096 }),
      ),
    ),
    'FSRESIZE_EXT_32BIT_LIMIT',
    'at the limit, on a larger device: still refused, never "already fills"',
  );
  // The 64bit feature (or not knowing it) lifts the limit.
  assert.deepStrictEqual(pick(planGrow(inspection({ ...limited, ext64bit: true }))), [
    'resize2fs',
    '/dev/sdc',
  ]);
  assert.deepStrictEqual(pick(planGrow(inspection({ ...limited, ext64bit: undefined }))), [
    'resize2fs',
    '/dev/sdc',
  ]);
  // Another program using the device is said first: converting it offline under that program would corrupt it.
  const used = planGrow(
    inspection({
      ...limited,
      users: {
        openedBy: [{ pid: 7, command: 'qemu-system-x86_64', majorMinor: '8:16' }],
        unreadable: [],
        holders: [],
        disk: null,
      },
    }),
  );
  assert.strictEqual(code(used), 'FSRESIZE_DEVICE_IN_USE');
});

it('an unmounted bigalloc ext filesystem is refused FSRESIZE_EXT_BIGALLOC_OFFLINE before any check or tool (resize2fs will not grow it unforced); mounted, it is grown online', () => {
  const bigalloc = { extBigalloc: true, devicePath: '/dev/sdc' };
  for (const extCheckNeeded of [false, true]) {
    const plan = planGrow(inspection({ ...bigalloc, extCheckNeeded }));
    assert.strictEqual(
      code(plan),
      'FSRESIZE_EXT_BIGALLOC_OFFLINE',
      'neither the check nor the grow runs',
    );
    assert.strictEqual(
      plan.kind === 'refuse' ? plan.error.message : '',
      'ext4 on /dev/sdb uses bigalloc and is not mounted; resize2fs refuses to grow an unmounted bigalloc filesystem unless forced ("Resizing bigalloc file systems has not been fully tested"), ' +
        "and voe never forces it; nothing was changed — mount it and grow it online (run voe again once it is mounted; kubelet's expandfs retries), " +
        'or, only if you accept that risk, grow it offline yourself: e2fsck -f /dev/sdc, then resize2fs -f /dev/sdc',
    );
  }
  assert.deepStrictEqual(
    pick(planGrow(inspection({ ...bigalloc, mountPoint: '/m' }))),
    ['resize2fs', '/dev/sdc'],
    'online: the kernel grows it',
  );
  assert.deepStrictEqual(pick(planGrow(inspection({ ...bigalloc, extBigalloc: false }))), [
    'resize2fs',
    '/dev/sdc',
  ]);
  assert.match(
    noop(planGrow(inspection({ ...bigalloc, deviceBytes: 100 * MiB }))),
    /already fills the device/,
    'nothing to grow is still a no-op',
  );
  const used = planGrow(
    inspection({
      ...bigalloc,
      users: {
        openedBy: [{ pid: 7, command: 'qemu-system-x86_64', majorMinor: '8:16' }],
        unreadable: [],
        holders: [],
        disk: null,
      },
    }),
  );
  assert.strictEqual(
    code(used),
    'FSRESIZE_DEVICE_IN_USE',
    'another program using it is said first: mounting it here would corrupt it',
  );
});

it('planGrow picks the tool per filesystem', () => {
  assert.deepStrictEqual(pick(planGrow(inspection())), ['resize2fs', '/dev/sdb']);
  assert.deepStrictEqual(pick(planGrow(inspection({ filesystem: 'ext3', mountPoint: '/m' }))), [
    'resize2fs',
    '/dev/sdb',
  ]);
  assert.deepStrictEqual(pick(planGrow(inspection({ filesystem: 'ext2' }))), [
    'resize2fs',
    '/dev/sdb',
  ]);
  assert.deepStrictEqual(pick(planGrow(inspection({ filesystem: 'xfs', mountPoint: '/m' }))), [
    'xfs_growfs',
    '-d',
    '/m',
  ]);
  assert.deepStrictEqual(
    pick(
      planGrow(
        inspection({ filesystem: 'btrfs', mountPoint: '/m', btrfs: { devid: 1, devices: 1 } }),
      ),
    ),
    ['btrfs', 'filesystem', 'resize', 'max', '/m'],
  );
  assert.deepStrictEqual(
    pick(
      planGrow(
        inspection({ filesystem: 'btrfs', mountPoint: '/m', btrfs: { devid: 3, devices: 2 } }),
      ),
    ),
    ['btrfs', 'filesystem', 'resize', '3:max', '/m'],
  );
  assert.deepStrictEqual(
    pick(
      planGrow(
        inspection({ filesystem: 'btrfs', mountPoint: '/m', btrfs: { devid: 2, devices: 1 } }),
      ),
    ),
    ['btrfs', 'filesystem', 'resize', '2:max', '/m'],
    'one device, whose devid is not 1',
  );
  const plan = planGrow(inspection({ devicePath: '/dev/sdc', device: '/dev/disk/by-id/x' }));
  assert.deepStrictEqual(
    pick(plan),
    ['resize2fs', '/dev/sdc'],
    'the resolved device path is passed to the tool',
  );
});

it('planGrow: an unmounted ext filesystem that fills its device but records errors (a resize stopped midway) is checked, not passed as "nothing to grow"', () => {
  for (const filesystem of ['ext2', 'ext3', 'ext4'] as const) {
    const full = {
      filesystem,
      devicePath: '/dev/sdc',
      deviceBytes: 100 * MiB,
      extCheckNeeded: true,
    };
    const damaged = planGrow(inspection({ ...full, extErrors: true }));
    assert.ok(damaged.kind === 'check', JSON.stringify(damaged));
    assert.deepStrictEqual(damaged.precheck, { tool: 'e2fsck', args: ['-f', '-p', '/dev/sdc'] });
    assert.match(
      damaged.reason,
      /^ext\d on \/dev\/sdb already fills the device \(100\.0 MiB of 100\.0 MiB\) but records errors \(e\.g\. a resize stopped midway\)$/,
    );
    assert.strictEqual(
      planGrow(inspection({ ...full, extErrors: false })).kind,
      'noop',
      'mounted since its last check, no errors: nothing to do',
    );
    assert.strictEqual(
      planGrow(inspection({ ...full, extErrors: true, mountPoint: '/m' })).kind,
      'noop',
      'mounted: the kernel owns it',
    );
    const used = planGrow(
      inspection({
        ...full,
        extErrors: true,
        users: {
          openedBy: [{ pid: 7, command: 'qemu-system-x86_64', majorMinor: '8:16' }],
          unreadable: [],
          holders: [],
          disk: null,
        },
      }),
    );
    assert.strictEqual(code(used), 'FSRESIZE_DEVICE_IN_USE', 'never checked under another user');
  }
});

it('planGrow checks an unmounted ext filesystem (e2fsck -f -p) only when resize2fs would demand it, never a mounted one', () => {
  for (const filesystem of ['ext2', 'ext3', 'ext4'] as const) {
    const needsCheck = planGrow(
      inspection({ filesystem, devicePath: '/dev/sdc', extCheckNeeded: true }),
    );
    assert.ok(needsCheck.kind === 'grow');
    assert.deepStrictEqual(needsCheck.precheck, { tool: 'e2fsck', args: ['-f', '-p', '/dev/sdc'] });
    assert.match(needsCheck.reason, /^check and grow /);
    const clean = planGrow(inspection({ filesystem, extCheckNeeded: false }));
    assert.ok(clean.kind === 'grow');
    assert.isUndefined(clean.precheck);
    const online = planGrow(inspection({ filesystem, mountPoint: '/m', extCheckNeeded: true }));
    assert.ok(online.kind === 'grow');
    assert.isUndefined(online.precheck, 'online resize needs no check');
  }
  for (const filesystem of ['xfs', 'btrfs'] as const) {
    const plan = planGrow(
      inspection({ filesystem, mountPoint: '/m', btrfs: { devid: 1, devices: 1 } }),
    );
    assert.ok(plan.kind === 'grow');
    assert.isUndefined(plan.precheck);
  }
});

it('planGrow refuses what it does not understand', () => {
  const partitioned = planGrow(inspection({ filesystem: null, partitionTable: 'gpt' }));
  assert.strictEqual(code(partitioned), 'FSRESIZE_PARTITIONED');
  assert.strictEqual(
    partitioned.kind === 'refuse' ? partitioned.error.message : '',
    "/dev/sdb holds a gpt partition table, not a filesystem (a partition's filesystem is on the partition's own device); nothing was changed — " +
      "grow the partition (e.g. growpart /dev/sdb 1), then run voe on the partition's device (e.g. /dev/sdb1: <disk>p1 when the disk's name ends in a digit, <disk>1 otherwise)",
  );
  // The partition's name as the kernel makes it, from the device's resolved path.
  for (const [path, partition] of [
    ['/dev/loop0', '/dev/loop0p1'],
    ['/dev/nvme0n1', '/dev/nvme0n1p1'],
    ['/dev/vdb', '/dev/vdb1'],
  ]) {
    const plan = planGrow(
      inspection({
        device: '/dev/disk/by-id/x',
        devicePath: path,
        filesystem: null,
        partitionTable: 'dos',
      }),
    );
    assert.match(
      plan.kind === 'refuse' ? plan.error.message : '',
      new RegExp(
        `^/dev/disk/by-id/x holds a dos partition table.*growpart ${path} 1\\), then run voe on the partition's device \\(e\\.g\\. ${partition}: `,
      ),
    );
  }
  const both = planGrow(inspection({ filesystem: 'ext4', partitionTable: 'dos' }));
  assert.strictEqual(code(both), 'FSRESIZE_PARTITIONED');
  assert.match(
    both.kind === 'refuse' ? both.error.message : '',
    /carries both an ext4 signature and a dos partition table/,
  );
  const vfat = planGrow(inspection({ filesystem: 'vfat', mountPoint: '/m' }));
  assert.strictEqual(code(vfat), 'FSRESIZE_UNSUPPORTED_FILESYSTEM');
  assert.match(
    vfat.kind === 'refuse' ? vfat.error.message : '',
    /resize of vfat is not supported \(device \/dev\/sdb, mounted at \/m\)/,
  );
  for (const filesystem of ['xfs', 'btrfs'] as const) {
    const unmounted = planGrow(inspection({ filesystem }));
    assert.strictEqual(code(unmounted), 'FSRESIZE_NOT_MOUNTED');
    const message = unmounted.kind === 'refuse' ? unmounted.error.message : '';
    // --mount cannot help a filesystem that is not mounted (and FlexVolume has no --mount).
    assert.notMatch(message, /--mount/);
    assert.match(
      message,
      /only grows while mounted — mount it and retry; voe sees the mounts of its own mount namespace/,
    );
  }
});

it('planGrow leaves unformatted, read-only and already grown devices alone, with the reason', () => {
  assert.match(
    noop(planGrow(inspection({ filesystem: null, filesystemBytes: null }))),
    /not formatted/,
  );
  assert.match(noop(planGrow(inspection({ deviceReadOnly: true }))), /is read-only/);
  assert.match(
    noop(planGrow(inspection({ mountPoint: '/m', mountReadOnly: true }))),
    /mounted read-only at \/m/,
  );
  assert.match(noop(planGrow(inspection({ deviceBytes: 100 * MiB }))), /already fills the device/);
  assert.match(
    noop(planGrow(inspection({ filesystem: 'xfs', deviceBytes: 100 * MiB }))),
    /already fills/,
    'already grown wins over not mounted',
  );
});

it('a device smaller than its filesystem is a fault, not a no-op: FSRESIZE_DEVICE_SMALLER_THAN_FILESYSTEM, nothing run', () => {
  for (const filesystem of ['ext4', 'xfs', 'btrfs'] as const) {
    for (const mountPoint of [null, '/m']) {
      const plan = planGrow(
        inspection({
          filesystem,
          mountPoint,
          deviceBytes: 90 * MiB,
          btrfs: { devid: 1, devices: 1 },
        }),
      );
      assert.strictEqual(
        code(plan),
        'FSRESIZE_DEVICE_SMALLER_THAN_FILESYSTEM',
        `${filesystem} ${mountPoint}`,
      );
      assert.match(
        plan.kind === 'refuse' ? plan.error.message : '',
        new RegExp(
          `^/dev/sdb \\(90\\.0 MiB\\) is smaller than the ${filesystem} filesystem on it \\(100\\.0 MiB\\).*nothing was changed.*check the device`,
        ),
      );
    }
  }
  assert.match(
    noop(planGrow(inspection({ deviceBytes: 90 * MiB, deviceReadOnly: true }))),
    /is read-only/,
    'a read-only device is still left alone first',
  );
});

it('sizes compared in one message that read the same at one decimal also give the exact bytes, so no message contradicts itself', () => {
  const smaller = planGrow(inspection({ deviceBytes: 100 * MiB - 512 }));
  assert.strictEqual(code(smaller), 'FSRESIZE_DEVICE_SMALLER_THAN_FILESYSTEM');
  assert.match(
    smaller.kind === 'refuse' ? smaller.error.message : '',
    /^\/dev\/sdb \(100\.0 MiB \(104857088 bytes\)\) is smaller than the ext4 filesystem on it \(100\.0 MiB \(104857600 bytes\)\): /,
  );
  assert.strictEqual(
    noop(planGrow(inspection({ deviceBytes: 100 * MiB + 2048 }))),
    'ext4 on /dev/sdb already fills the device (100.0 MiB (104857600 bytes) of 100.0 MiB (104859648 bytes)): nothing to grow',
  );
  const grow = planGrow(
    inspection({
      filesystem: 'xfs',
      mountPoint: '/m',
      filesystemBytes: 1024 * MiB,
      deviceBytes: 1025 * MiB,
    }),
  );
  assert.ok(grow.kind === 'grow');
  assert.strictEqual(
    grow.reason,
    'grow xfs on /dev/sdb from 1.0 GiB (1073741824 bytes) to 1.0 GiB (1074790400 bytes) online (mounted at /m)',
  );
  const TiB = 1024 * 1024 * MiB;
  const limited = planGrow(
    inspection({ filesystemBytes: TiB, deviceBytes: 16 * TiB + 4096, ext64bit: false }),
  );
  assert.match(
    limited.kind === 'refuse' ? limited.error.message : '',
    /cannot grow to 16\.0 TiB \(17592186048512 bytes\): without the 64bit feature it cannot address more than 17592186040320 bytes \(16\.0 TiB;/,
  );
  // Sizes that differ at one decimal stay as they were.
  assert.match(
    noop(planGrow(inspection({ deviceBytes: 100 * MiB }))),
    /\(100\.0 MiB of 100\.0 MiB\)/,
  );
  const plain = planGrow(inspection());
  assert.ok(plain.kind === 'grow');
  assert.match(plain.reason, /from 100\.0 MiB to 200\.0 MiB offline$/);
});

it('a filesystem mounted only where another mount hides it is refused FSRESIZE_MOUNT_HIDDEN, for every filesystem', () => {
  for (const filesystem of ['ext4', 'xfs', 'btrfs'] as const) {
    const plan = planGrow(
      inspection({
        filesystem,
        mountPoint: null,
        hiddenMountPoints: ['/m'],
        btrfs: { devid: 1, devices: 1 },
      }),
    );
    assert.strictEqual(code(plan), 'FSRESIZE_MOUNT_HIDDEN', filesystem);
    assert.match(
      plan.kind === 'refuse' ? plan.error.message : '',
      new RegExp(
        `^${filesystem} on /dev/sdb is mounted at /m but hidden by another mount there .*nothing was changed`,
      ),
    );
  }
  assert.strictEqual(
    pick(
      planGrow(inspection({ filesystem: 'xfs', mountPoint: '/n', hiddenMountPoints: ['/m'] })),
    )[0],
    'xfs_growfs',
    'a visible mount elsewhere is used',
  );
});

it("xfs mounted over another mount is refused: xfs_growfs would size it from the hidden mount's device", () => {
  const plan = planGrow(
    inspection({ filesystem: 'xfs', mountPoint: '/m', mountPointStacked: true }),
  );
  assert.strictEqual(code(plan), 'FSRESIZE_MOUNT_HIDDEN');
  assert.match(
    plan.kind === 'refuse' ? plan.error.message : '',
    /xfs_growfs would take the size of the hidden filesystem's device/,
  );
  assert.deepStrictEqual(
    pick(
      planGrow(
        inspection({
          filesystem: 'btrfs',
          mountPoint: '/m',
          mountPointStacked: true,
          btrfs: { devid: 1, devices: 1 },
        }),
      ),
    ),
    ['btrfs', 'filesystem', 'resize', 'max', '/m'],
    'btrfs resizes the filesystem the path shows',
  );
  assert.deepStrictEqual(
    pick(planGrow(inspection({ filesystem: 'ext4', mountPoint: '/m', mountPointStacked: true }))),
    ['resize2fs', '/dev/sdb'],
    'resize2fs finds the mount whose path shows the device',
  );
});

it('read-only comes first, as in Kubernetes: a read-only device is never refused or written, whatever it holds', () => {
  assert.match(
    noop(planGrow(inspection({ deviceReadOnly: true, filesystem: 'vfat' }))),
    /read-only \(blockdev --getro = 1\): the vfat filesystem was not changed/,
  );
  assert.match(
    noop(planGrow(inspection({ deviceReadOnly: true, filesystem: null, partitionTable: 'gpt' }))),
    /read-only \(blockdev --getro = 1\): the device was not changed/,
  );
  assert.match(
    noop(planGrow(inspection({ filesystem: 'vfat', mountPoint: '/m', mountReadOnly: true }))),
    /vfat on \/dev\/sdb is mounted read-only at \/m/,
  );
});

it('readOnlyDevice: refuse makes a read-only device FSRESIZE_DEVICE_READ_ONLY (for callers whose success records the resize as done)', () => {
  const refused = planGrow(inspection({ deviceReadOnly: true }), { readOnlyDevice: 'refuse' });
  assert.strictEqual(code(refused), 'FSRESIZE_DEVICE_READ_ONLY');
  assert.match(
    refused.kind === 'refuse' ? refused.error.message : '',
    /^\/dev\/sdb is read-only \(blockdev --getro = 1\), so the ext4 filesystem on it cannot be grown; nothing was changed/,
  );
  assert.strictEqual(
    planGrow(inspection({ deviceReadOnly: true }), { readOnlyDevice: 'leave' }).kind,
    'noop',
  );
});

it('needsResize is false on a read-only device or mount (nothing may be written there)', () => {
  assert.isFalse(needsResize(inspection({ deviceReadOnly: true })));
  assert.isFalse(needsResize(inspection({ mountPoint: '/m', mountReadOnly: true })));
  assert.isTrue(
    needsResize(inspection({ mountPoint: null, mountReadOnly: true })),
    'a read-only flag without a mount in use does not count',
  );
});

function pick(plan: ReturnType<typeof planGrow>): string[] {
  assert.strictEqual(plan.kind, 'grow');
  return plan.kind === 'grow' ? [plan.tool, ...plan.args] : [];
}
function code(plan: ReturnType<typeof planGrow>): string {
  assert.strictEqual(plan.kind, 'refuse');
  return plan.kind === 'refuse' ? plan.error.code : '';
}
function noop(plan: ReturnType<typeof planGrow>): string {
  assert.strictEqual(plan.kind, 'noop');
  return plan.kind === 'noop' ? plan.reason : '';
}

it('an unmounted ext filesystem is not grown offline while processes whose open files voe may not read exist: FSRESIZE_PERMISSION_DENIED naming them, unless told to ignore them', () => {
  const unreadable = [1, 2, 3, 4, 5, 6].map((pid) => ({ pid, command: `p${pid}` }));
  for (const extCheckNeeded of [false, true]) {
    const plan = planGrow(
      inspection({
        users: { openedBy: [], unreadable: unreadable.slice(0, 1), holders: [], disk: null },
        extCheckNeeded,
      }),
    );
    assert.strictEqual(
      code(plan),
      'FSRESIZE_PERMISSION_DENIED',
      'neither the check nor the grow runs',
    );
    assert.strictEqual(
      plan.kind === 'refuse' ? plan.error.message : '',
      'ext4 on /dev/sdb is not mounted here, and the kernel would not show voe which files pid 1 (p1) has open (voe lacks CAP_SYS_PTRACE, or those processes have capabilities voe lacks): ' +
        'any of them may use the device, and growing it offline under a program that uses it would corrupt it; nothing was changed — run voe as root with every capability ' +
        '(as kubelet runs FlexVolume drivers), or, only if you know these processes do not use the device, pass --ignore-unreadable-processes or set VOE_IGNORE_UNREADABLE_PROCESSES=1 (the FlexVolume driver takes no flags)',
    );
    assert.deepStrictEqual(plan.kind === 'refuse' ? plan.error.details : {}, {
      unreadable: [{ pid: 1, command: 'p1' }],
    });
  }
  const many = planGrow(
    inspection({ users: { openedBy: [], unreadable, holders: [], disk: null } }),
  );
  assert.match(
    many.kind === 'refuse' ? many.error.message : '',
    /which files pid 1 \(p1\), pid 2 \(p2\), pid 3 \(p3\), pid 4 \(p4\), pid 5 \(p5\) and 1 more have open/,
  );
  assert.deepStrictEqual(
    many.kind === 'refuse' ? many.error.details : {},
    { unreadable },
    'all of them in the details',
  );
  assert.deepStrictEqual(
    pick(
      planGrow(inspection({ users: { openedBy: [], unreadable, holders: [], disk: null } }), {
        unreadableProcesses: 'ignore',
      }),
    ),
    ['resize2fs', '/dev/sdb'],
  );
  // A program seen to have it open, or a device stacked on it, is the refusal to give, ignored or not.
  const seen = planGrow(
    inspection({
      users: {
        openedBy: [{ pid: 9, command: 'qemu', majorMinor: '8:16' }],
        unreadable,
        holders: [],
        disk: null,
      },
    }),
    { unreadableProcesses: 'ignore' },
  );
  assert.strictEqual(code(seen), 'FSRESIZE_DEVICE_IN_USE');
  assert.strictEqual(
    code(
      planGrow(
        inspection({
          users: {
            openedBy: [{ pid: 9, command: 'qemu', majorMinor: '8:16' }],
            unreadable,
            holders: [],
            disk: null,
          },
        }),
      ),
    ),
    'FSRESIZE_DEVICE_IN_USE',
  );
  // Mounted: the kernel owns the filesystem, and the look is not made (users null) or does not matter.
  assert.deepStrictEqual(
    pick(
      planGrow(
        inspection({
          mountPoint: '/m',
          users: { openedBy: [], unreadable, holders: [], disk: null },
        }),
      ),
    ),
    ['resize2fs', '/dev/sdb'],
  );
});

it('an unmounted ext filesystem that another program has open, or that devices are stacked on, is refused FSRESIZE_DEVICE_IN_USE (never grown offline under them)', () => {
  const qemu = [{ pid: 4242, command: 'qemu-system-x86', majorMinor: '8:16' }];
  for (const filesystem of ['ext2', 'ext3', 'ext4'] as const) {
    for (const extCheckNeeded of [false, true]) {
      const plan = planGrow(
        inspection({
          filesystem,
          users: { openedBy: qemu, unreadable: [], holders: [], disk: null },
          extCheckNeeded,
        }),
      );
      assert.strictEqual(
        code(plan),
        'FSRESIZE_DEVICE_IN_USE',
        'neither the check nor the grow runs',
      );
      assert.strictEqual(
        plan.kind === 'refuse' ? plan.error.message : '',
        `${filesystem} on /dev/sdb is not mounted here, but pid 4242 (qemu-system-x86) has the device open: growing it offline while another program uses it (e.g. a VM whose guest has it mounted) would corrupt it; nothing was changed — grow it where it is in use (e.g. inside the guest), or stop that program and retry; voe sees the processes of its own PID namespace only`,
      );
    }
  }
  const many = planGrow(
    inspection({
      users: {
        openedBy: [1, 2, 3, 4, 5, 6, 7].map((pid) => ({
          pid,
          command: `p${pid}`,
          majorMinor: '8:16',
        })),
        unreadable: [],
        holders: [],
        disk: null,
      },
    }),
  );
  assert.match(
    many.kind === 'refuse' ? many.error.message : '',
    /but pid 1 \(p1\), pid 2 \(p2\), pid 3 \(p3\), pid 4 \(p4\), pid 5 \(p5\) and 2 more have the device open/,
  );
  const stackedOn = planGrow(
    inspection({ users: { openedBy: [], unreadable: [], holders: ['dm-0'], disk: null } }),
  );
  assert.strictEqual(code(stackedOn), 'FSRESIZE_DEVICE_IN_USE');
  assert.match(
    stackedOn.kind === 'refuse' ? stackedOn.error.message : '',
    /^ext4 on \/dev\/sdb is not mounted here, but dm-0 is stacked on the device \(device-mapper, RAID, loop\)/,
  );
  // A partition: whoever has the whole disk open (QEMU with a VM's partitioned disk) uses it too.
  const partition = planGrow(
    inspection({
      device: '/dev/sdb1',
      majorMinor: '8:17',
      users: { openedBy: qemu, unreadable: [], holders: [], disk: '8:16' },
    }),
  );
  assert.match(
    partition.kind === 'refuse' ? partition.error.message : '',
    /^ext4 on \/dev\/sdb1 is not mounted here, but pid 4242 \(qemu-system-x86 with its whole disk 8:16\) has the device or its whole disk \(8:16\) open: growing it offline/,
  );
  const loopOnDisk = planGrow(
    inspection({
      device: '/dev/sdb1',
      majorMinor: '8:17',
      users: { openedBy: [], unreadable: [], holders: ['loop3'], disk: '8:16' },
    }),
  );
  assert.match(
    loopOnDisk.kind === 'refuse' ? loopOnDisk.error.message : '',
    /but loop3 is stacked on the device or its whole disk \(8:16\) \(device-mapper, RAID, loop\)/,
  );
  // Where the kernel owns the filesystem (mounted), or nothing is written, other openers do not matter.
  assert.deepStrictEqual(
    pick(
      planGrow(
        inspection({
          mountPoint: '/m',
          users: { openedBy: qemu, unreadable: [], holders: ['dm-0'], disk: null },
        }),
      ),
    ),
    ['resize2fs', '/dev/sdb'],
  );
  assert.deepStrictEqual(
    pick(planGrow(inspection({ filesystem: 'xfs', mountPoint: '/m', users: null }))),
    ['xfs_growfs', '-d', '/m'],
  );
  const notLooked = planGrow(inspection({ users: null }));
  assert.strictEqual(
    code(notLooked),
    'FSRESIZE_DEVICE_IN_USE',
    'not looked for is never taken as nobody',
  );
  assert.match(
    notLooked.kind === 'refuse' ? notLooked.error.message : '',
    /who else uses the device was not looked for; nothing was changed/,
  );
  assert.match(
    noop(
      planGrow(
        inspection({
          deviceBytes: 100 * MiB,
          users: { openedBy: qemu, unreadable: [], holders: [], disk: null },
        }),
      ),
    ),
    /already fills the device/,
  );
  assert.match(
    noop(
      planGrow(
        inspection({
          deviceReadOnly: true,
          users: { openedBy: qemu, unreadable: [], holders: [], disk: null },
        }),
      ),
    ),
    /is read-only/,
  );
});

it('a loop device: whatever else shows or opens its backing file or device is a user too; an unmounted ext on it is refused FSRESIZE_DEVICE_IN_USE naming it', () => {
  const loop = (users: Partial<NonNullable<Inspection['users']>>): Inspection =>
    inspection({
      device: '/dev/loop3',
      devicePath: '/dev/loop3',
      majorMinor: '7:3',
      users: { openedBy: [], unreadable: [], holders: [], disk: null, ...users },
    });
  const file: LoopBacking = {
    loop: 'loop3',
    path: '/var/images/a.img',
    kind: 'file',
    sharedWith: [],
    busy: false,
  };
  const message = (plan: ReturnType<typeof planGrow>): string => {
    assert.strictEqual(code(plan), 'FSRESIZE_DEVICE_IN_USE');
    return plan.kind === 'refuse' ? plan.error.message : '';
  };
  assert.deepStrictEqual(
    pick(planGrow(loop({ backing: [file] }))),
    ['resize2fs', '/dev/loop3'],
    'nothing else shows or opens the file: grown',
  );
  assert.strictEqual(
    message(planGrow(loop({ backing: [{ ...file, sharedWith: ['loop5'] }] }))),
    'ext4 on /dev/loop3 is not mounted here, but its backing file /var/images/a.img is also attached as /dev/loop5, which shows the same data (mounted or used there, it would be corrupted by an offline grow here); nothing was changed — detach the other loop device (losetup -d) if unused, or grow the filesystem where it is in use',
  );
  assert.match(
    message(planGrow(loop({ backing: [{ ...file, sharedWith: ['loop5', 'loop6'] }] }))),
    /is also attached as \/dev\/loop5, \/dev\/loop6, which show the same data .* detach the other loop devices \(losetup -d\)/,
  );
  assert.match(
    message(
      planGrow(
        loop({
          openedBy: [
            {
              pid: 77,
              command: 'qemu-system-x86',
              majorMinor: '7:3',
              backingFile: '/var/images/a.img',
            },
          ],
          backing: [file],
        }),
      ),
    ),
    /^ext4 on \/dev\/loop3 is not mounted here, but pid 77 \(qemu-system-x86 with the backing file \/var\/images\/a\.img\) has the device or the backing file or device under it open: growing it offline/,
  );
  assert.strictEqual(
    message(
      planGrow(
        loop({ backing: [{ ...file, path: '/var/images/a.img (deleted)', kind: 'unknown' }] }),
      ),
    ),
    'ext4 on /dev/loop3 is not mounted here, but what it shows lies in /var/images/a.img (deleted), which does not lead to a file or device here (deleted, or the loop device was set up in another mount namespace): voe cannot see what else uses that data, and growing it offline under another user would corrupt it; nothing was changed — grow it from the mount namespace that set it up',
  );
  // A loop device over a device (here another loop device, over a file).
  const overDevice: LoopBacking = {
    loop: 'loop3',
    path: '/dev/loop1',
    kind: 'device',
    majorMinor: '7:1',
    sharedWith: [],
    busy: false,
  };
  const lower: LoopBacking = {
    loop: 'loop1',
    path: '/var/images/b.img',
    kind: 'file',
    sharedWith: [],
    busy: false,
  };
  assert.deepStrictEqual(pick(planGrow(loop({ backing: [overDevice, lower] }))), [
    'resize2fs',
    '/dev/loop3',
  ]);
  assert.strictEqual(
    message(planGrow(loop({ backing: [{ ...overDevice, busy: true }, lower] }))),
    'ext4 on /dev/loop3 is not mounted here, but its backing device /dev/loop1 is in use by the kernel (mounted, perhaps in another mount namespace, or claimed by device-mapper or RAID; an exclusive open of it was refused): growing it offline underneath would corrupt it; nothing was changed — grow the filesystem where it is mounted',
  );
  assert.match(
    message(planGrow(loop({ backing: [overDevice, { ...lower, sharedWith: ['loop4'] }] }))),
    /but its backing file \/var\/images\/b\.img \(of loop1\) is also attached as \/dev\/loop4/,
  );
  assert.match(
    message(
      planGrow(
        loop({
          openedBy: [{ pid: 8, command: 'dd', majorMinor: '7:1' }],
          backing: [overDevice, lower],
        }),
      ),
    ),
    /but pid 8 \(dd with the backing device \/dev\/loop1\) has the device or the backing file or device under it open/,
  );
  assert.match(
    message(planGrow(loop({ holders: ['dm-2'], backing: [overDevice, lower] }))),
    /but dm-2 is stacked on the device or the backing device \/dev\/loop1 \(device-mapper, RAID, loop\)/,
  );
  // A partition of a loop device: the whole disk's backing, named by its loop device.
  assert.match(
    message(
      planGrow(
        inspection({
          device: '/dev/loop3p1',
          devicePath: '/dev/loop3p1',
          majorMinor: '259:0',
          users: {
            openedBy: [],
            unreadable: [],
            holders: [],
            disk: '7:3',
            backing: [{ ...file, sharedWith: ['loop5'] }],
          },
        }),
      ),
    ),
    /^ext4 on \/dev\/loop3p1 is not mounted here, but its backing file \/var\/images\/a\.img \(of loop3\) is also attached as \/dev\/loop5/,
  );
  // Mounted: the kernel owns the filesystem and grows it online.
  assert.deepStrictEqual(
    pick(
      planGrow({ ...loop({ backing: [{ ...file, sharedWith: ['loop5'] }] }), mountPoint: '/m' }),
    ),
    ['resize2fs', '/dev/loop3'],
  );
});

it("voe in a PID namespace of its own cannot see the node's other processes: an offline grow is refused FSRESIZE_PERMISSION_DENIED saying so, unless told to ignore what it cannot see", () => {
  const hidden = inspection({
    users: { openedBy: [], unreadable: [], processesHidden: true, holders: [], disk: null },
  });
  const plan = planGrow(hidden);
  assert.strictEqual(code(plan), 'FSRESIZE_PERMISSION_DENIED');
  assert.match(
    plan.kind === 'refuse' ? plan.error.message : '',
    /^ext4 on \/dev\/sdb is not mounted here, and voe cannot see the node's other processes: it runs in a PID namespace of its own .* run voe in the host PID namespace \(hostPID: true, or on the node itself\), or, only if you know no other program uses the device, pass --ignore-unreadable-processes/,
  );
  assert.deepStrictEqual(pick(planGrow(hidden, { unreadableProcesses: 'ignore' })), [
    'resize2fs',
    '/dev/sdb',
  ]);
  assert.deepStrictEqual(
    pick(planGrow({ ...hidden, mountPoint: '/m' })),
    ['resize2fs', '/dev/sdb'],
    'mounted: the kernel owns it',
  );
  assert.strictEqual(
    code(
      planGrow(
        inspection({
          users: {
            openedBy: [{ pid: 9, command: 'qemu', majorMinor: '8:16' }],
            unreadable: [],
            processesHidden: true,
            holders: [],
            disk: null,
          },
        }),
      ),
    ),
    'FSRESIZE_DEVICE_IN_USE',
    'a user seen is named first',
  );
});

it('a device still short of the required size by a 4 KiB block or more is refused FSRESIZE_DEVICE_TOO_SMALL, whatever it holds; less than a block short counts as grown', () => {
  // A 100M (100,000,000-byte) volume is 195,312 sectors of 512 bytes: 99,999,744 bytes.
  assert.deepStrictEqual(
    pick(
      planGrow(inspection({ deviceBytes: 99_999_744, filesystemBytes: 50 * MiB }), {
        requiredDeviceBytes: 100_000_000,
      }),
    ),
    ['resize2fs', '/dev/sdb'],
  );
  assert.deepStrictEqual(
    pick(planGrow(inspection(), { requiredDeviceBytes: 200 * MiB })),
    ['resize2fs', '/dev/sdb'],
    'exactly the size',
  );
  assert.deepStrictEqual(
    pick(planGrow(inspection(), { requiredDeviceBytes: 100 * MiB })),
    ['resize2fs', '/dev/sdb'],
    'larger than asked',
  );
  const short = planGrow(
    inspection({ deviceBytes: 100_000_000 - DEVICE_SIZE_SLACK_BYTES, filesystemBytes: 50 * MiB }),
    { requiredDeviceBytes: 100_000_000 },
  );
  assert.strictEqual(code(short), 'FSRESIZE_DEVICE_TOO_SMALL');
  assert.strictEqual(
    short.kind === 'refuse' ? short.error.message : '',
    '/dev/sdb is 99995904 bytes, less than the requested 100000000: the volume has not grown on this node yet; nothing was changed — retry once the device shows the new size',
  );
  // Before anything about the content: the device is not yet the one to judge.
  for (const overrides of [
    { filesystem: 'vfat' },
    { deviceReadOnly: true },
    {
      users: {
        openedBy: [{ pid: 9, command: 'qemu', majorMinor: '8:16' }],
        unreadable: [],
        holders: [],
        disk: null,
      },
    },
  ] as Array<Partial<Inspection>>) {
    assert.strictEqual(
      code(planGrow(inspection(overrides), { requiredDeviceBytes: 400 * MiB })),
      'FSRESIZE_DEVICE_TOO_SMALL',
      JSON.stringify(overrides),
    );
  }
  assert.strictEqual(
    code(planGrow(inspection({ deviceBytes: 0 }), { requiredDeviceBytes: 400 * MiB })),
    'FSRESIZE_DEVICE_EMPTY',
    'a device of 0 bytes is not attached: said so first',
  );
  // A device smaller than its filesystem (a shrunk volume, the wrong device) is that fault, not a growth to wait for.
  assert.strictEqual(
    code(planGrow(inspection({ filesystemBytes: 300 * MiB }), { requiredDeviceBytes: 400 * MiB })),
    'FSRESIZE_DEVICE_SMALLER_THAN_FILESYSTEM',
  );
});

it('a filesystem mounted read-only on a writable device is left alone by default, and refused FSRESIZE_MOUNT_READ_ONLY when the caller asks (a FlexVolume Success would record the resize as done)', () => {
  const readOnlyMount = inspection({ filesystem: 'xfs', mountPoint: '/m', mountReadOnly: true });
  assert.match(noop(planGrow(readOnlyMount)), /mounted read-only at \/m/);
  assert.match(
    noop(planGrow(readOnlyMount, { readOnlyMount: 'leave' })),
    /mounted read-only at \/m/,
  );
  const refused = planGrow(readOnlyMount, { readOnlyMount: 'refuse' });
  assert.strictEqual(code(refused), 'FSRESIZE_MOUNT_READ_ONLY');
  assert.match(
    refused.kind === 'refuse' ? refused.error.message : '',
    /^xfs on \/dev\/sdb is mounted read-only at \/m although the device is writable, so it cannot be grown there; nothing was changed — /,
  );
  // A read-only device is not grown by anyone (Kubernetes' NeedResize is false): still a no-op.
  assert.match(
    noop(planGrow({ ...readOnlyMount, deviceReadOnly: true }, { readOnlyMount: 'refuse' })),
    /is read-only \(blockdev --getro = 1\)/,
  );
  assert.deepStrictEqual(
    pick(
      planGrow(inspection({ filesystem: 'xfs', mountPoint: '/m' }), { readOnlyMount: 'refuse' }),
    ),
    ['xfs_growfs', '-d', '/m'],
  );
});
