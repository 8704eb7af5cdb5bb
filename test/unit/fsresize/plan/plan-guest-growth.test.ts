import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { GuestGrowthErrorCode } from '../../../../src/fsresize/model/guest-growth-error.js';
import type { GuestLayout } from '../../../../src/fsresize/model/guest-layout.js';
import { planGuestGrowth } from '../../../../src/fsresize/plan/plan-guest-growth.js';
import {
  GiB,
  MiB,
  gptLastLba,
  lsblkOutput,
  lvmReport,
  mkfsBytes,
  sfdiskOutput,
  type LsblkNode,
} from '../../../support/fsresize/guest-outputs.js';
import { ALL_TOOLS, fsSize, guestLayout } from '../../../support/fsresize/guest-layouts.js';

/** The disk was 10 GiB; the hypervisor grew it to 20 GiB (virsh blockresize), and the guest's kernel shows 20 GiB. */
const OLD = 10 * GiB;
const NEW = 20 * GiB;
const DISK = '/dev/vdb';

/** Partition 1 as sfdisk makes it on a new table of the old disk: from 1 MiB to the end. */
const GPT_P1 = gptLastLba(OLD) - 2048 + 1;
const DOS_P1 = OLD / 512 - 2048;
/** Where partition 1 ends once grown on the new disk (sfdisk --relocate, then ", +"). */
const GPT_P1_GROWN = gptLastLba(NEW) - 2048 + 1;
const DOS_P1_GROWN = NEW / 512 - 2048;

function unpartitioned(fstype: string, mountpoint: string | null, size = NEW): string {
  return lsblkOutput({ name: DISK, type: 'disk', size, fstype, mountpoint });
}

function partitioned(pttype: 'gpt' | 'dos', parts: LsblkNode[], size = NEW): string {
  return lsblkOutput({ name: DISK, type: 'disk', size, pttype, children: parts });
}

function part(n: number, sectors: number, extra: Partial<LsblkNode> = {}): LsblkNode {
  return { name: `${DISK}${n}`, kname: `${DISK}${n}`, type: 'part', size: sectors * 512, ...extra };
}

/** The partition table as sfdisk reports it: partition 1 from 1 MiB, `sectors` long. */
function tableOfOne(label: 'gpt' | 'dos', sectors: number, lastLba?: number) {
  return {
    [DISK]: sfdiskOutput(DISK, label, [{ number: 1, start: 2048, size: sectors }], lastLba),
  };
}

/** An LV of vg0 as lsblk lists it under its PV, mounted. */
function lvNode(name: string, kname: string, size: number, fstype: string, mountpoint: string) {
  return { name: `/dev/mapper/vg0-${name}`, kname, type: 'lvm', size, fstype, mountpoint };
}

/**
 * A GPT disk whose one partition (`sectors` long, the table's last LBA `lastLba`) holds ext4 at
 * /data, `fsBytes` large; the rest as given.
 */
function gptExt4(
  sectors: number,
  lastLba: number,
  fsBytes: number,
  more: { diskSize?: number; tools?: readonly string[] } = {},
): GuestLayout {
  return guestLayout({
    lsblk: partitioned(
      'gpt',
      [part(1, sectors, { fstype: 'ext4', mountpoint: '/data' })],
      more.diskSize,
    ),
    sfdisk: tableOfOne('gpt', sectors, lastLba),
    filesystems: { [`${DISK}1`]: fsSize('ext4', fsBytes) },
    ...(more.tools ? { tools: more.tools } : {}),
  });
}

/** A GPT disk whose one partition (`sectors` long) is vg0's PV holding `lvs`, ext4 on data at /data `fsBytes` large. */
function gptLvm(
  sectors: number,
  lastLba: number,
  lvs: Array<{ name: string; bytes: number; fstype: string; mountpoint: string }>,
  fsBytes?: number,
): GuestLayout {
  return guestLayout({
    lsblk: partitioned('gpt', [
      part(1, sectors, {
        fstype: 'LVM2_member',
        children: lvs.map((lv, i) =>
          lvNode(lv.name, `/dev/dm-${i}`, lv.bytes, lv.fstype, lv.mountpoint),
        ),
      }),
    ]),
    sfdisk: tableOfOne('gpt', sectors, lastLba),
    lvm: lvm(
      sectors * 512,
      lvs.map((lv) => ({ name: lv.name, bytes: lv.bytes })),
    ),
    ...(fsBytes === undefined
      ? {}
      : { filesystems: { '/dev/mapper/vg0-data': fsSize('ext4', fsBytes) } }),
  });
}

/** vg0's one LV, data: ext4 at /data. */
const dataLv = (bytes: number) => [{ name: 'data', bytes, fstype: 'ext4', mountpoint: '/data' }];

/** LVM on /dev/vdb1: pe_start 1 MiB, 4 MiB extents, as vgcreate makes them; pv_size is whole extents. */
function lvm(partBytes: number, lvs: Array<{ name: string; bytes: number }>, vgFree = 0) {
  const extent = 4 * MiB;
  const pvBytes = Math.floor((partBytes - MiB) / extent) * extent;
  return {
    pvs: lvmReport('pv', [
      {
        pv_name: `${DISK}1`,
        vg_name: 'vg0',
        pv_size: String(pvBytes),
        pv_free: String(vgFree),
        pe_start: String(MiB),
        dev_size: String(partBytes),
      },
    ]),
    vgs: lvmReport('vg', [
      { vg_name: 'vg0', vg_free: String(vgFree), vg_extent_size: String(extent) },
    ]),
    lvs: lvmReport(
      'lv',
      lvs.map((lv) => ({
        lv_name: lv.name,
        vg_name: 'vg0',
        lv_path: `/dev/vg0/${lv.name}`,
        lv_dm_path: `/dev/mapper/vg0-${lv.name}`,
        lv_size: String(lv.bytes),
        devices: `${DISK}1(0)`,
      })),
    ),
    pvBytes,
  };
}

const OLD_LVM = lvm(GPT_P1 * 512, [{ name: 'data', bytes: lvm(GPT_P1 * 512, []).pvBytes }]);
const NEW_PV = lvm(GPT_P1_GROWN * 512, []).pvBytes;

interface GrowRow {
  name: string;
  layout: GuestLayout;
  argv: string[][];
  stdin?: Record<number, string>;
}

const growRows: GrowRow[] = [
  {
    name: 'unpartitioned ext4, mounted: resize2fs on the disk',
    layout: guestLayout({
      lsblk: unpartitioned('ext4', '/data'),
      filesystems: { [DISK]: fsSize('ext4', mkfsBytes(OLD)) },
    }),
    argv: [['resize2fs', DISK]],
  },
  {
    name: 'unpartitioned xfs, mounted: xfs_growfs -d on the mount point',
    layout: guestLayout({
      lsblk: unpartitioned('xfs', '/srv/xfs data'),
      filesystems: { [DISK]: fsSize('xfs', mkfsBytes(OLD)) },
    }),
    argv: [['xfs_growfs', '-d', '/srv/xfs data']],
  },
  {
    name: 'unpartitioned btrfs, mounted: btrfs filesystem resize max',
    layout: guestLayout({
      lsblk: unpartitioned('btrfs', '/data'),
      filesystems: { [DISK]: fsSize('btrfs', OLD) },
    }),
    argv: [['btrfs', 'filesystem', 'resize', 'max', '/data']],
  },
  {
    name: 'GPT, ext4 on the last partition, growpart in the guest',
    layout: gptExt4(GPT_P1, gptLastLba(OLD), mkfsBytes(GPT_P1 * 512)),
    argv: [
      ['growpart', DISK, '1'],
      ['partx', '--update', '--nr', '1', DISK],
      ['resize2fs', `${DISK}1`],
    ],
  },
  {
    name: 'GPT without growpart: the backup header moved, then sfdisk -N with its script on stdin',
    layout: gptExt4(GPT_P1, gptLastLba(OLD), mkfsBytes(GPT_P1 * 512), {
      tools: ALL_TOOLS.filter((tool) => tool !== 'growpart'),
    }),
    argv: [
      ['sfdisk', '--relocate', 'gpt-bak-std', DISK],
      ['sfdisk', '--no-reread', '--no-tell-kernel', '-N', '1', DISK],
      ['partx', '--update', '--nr', '1', DISK],
      ['resize2fs', `${DISK}1`],
    ],
    stdin: { 1: ', +\n' },
  },
  {
    name: 'MBR, xfs on the last partition, sfdisk (no backup header to move), resizepart without partx',
    layout: guestLayout({
      lsblk: partitioned('dos', [part(1, DOS_P1, { fstype: 'xfs', mountpoint: '/data' })]),
      sfdisk: tableOfOne('dos', DOS_P1),
      filesystems: { [`${DISK}1`]: fsSize('xfs', mkfsBytes(DOS_P1 * 512)) },
      tools: ['sfdisk', 'resizepart', 'xfs_growfs'],
    }),
    argv: [
      ['sfdisk', '--no-reread', '--no-tell-kernel', '-N', '1', DISK],
      ['resizepart', DISK, '1', String(DOS_P1_GROWN)],
      ['xfs_growfs', '-d', '/data'],
    ],
    stdin: { 0: ', +\n' },
  },
  {
    name: 'LVM: PV on the last GPT partition, ext4 on the only LV',
    layout: gptLvm(GPT_P1, gptLastLba(OLD), dataLv(OLD_LVM.pvBytes), OLD_LVM.pvBytes),
    argv: [
      ['growpart', DISK, '1'],
      ['partx', '--update', '--nr', '1', DISK],
      ['pvresize', `${DISK}1`],
      ['lvextend', '-l', '+100%FREE', '/dev/vg0/data'],
      ['resize2fs', '/dev/mapper/vg0-data'],
    ],
  },
  {
    name: 'a run stopped after the table was written: the kernel is told, then the filesystem grows',
    layout: guestLayout({
      lsblk: partitioned('gpt', [part(1, GPT_P1, { fstype: 'ext4', mountpoint: '/data' })]),
      sfdisk: tableOfOne('gpt', GPT_P1_GROWN, gptLastLba(NEW)),
      filesystems: { [`${DISK}1`]: fsSize('ext4', mkfsBytes(GPT_P1 * 512)) },
    }),
    argv: [
      ['partx', '--update', '--nr', '1', DISK],
      ['resize2fs', `${DISK}1`],
    ],
  },
  {
    name: 'a run stopped after lvextend: only the filesystem is left (no lvextend with nothing free)',
    layout: gptLvm(GPT_P1_GROWN, gptLastLba(NEW), dataLv(NEW_PV), OLD_LVM.pvBytes),
    argv: [['resize2fs', '/dev/mapper/vg0-data']],
  },
];

/** The same guests once grown: each step's result holds, so nothing is planned. */
const grownRows: Array<{ name: string; layout: GuestLayout }> = [
  {
    name: 'unpartitioned ext4 filling the disk',
    layout: guestLayout({
      lsblk: unpartitioned('ext4', '/data'),
      filesystems: { [DISK]: fsSize('ext4', mkfsBytes(NEW)) },
    }),
  },
  {
    name: 'xfs short of its device by less than 64 blocks (the tail xfs_growfs leaves)',
    layout: guestLayout({
      lsblk: unpartitioned('xfs', '/data'),
      filesystems: { [DISK]: fsSize('xfs', NEW - 63 * 4096) },
    }),
  },
  {
    name: 'GPT ext4 grown: table, kernel and filesystem',
    layout: gptExt4(GPT_P1_GROWN, gptLastLba(NEW), mkfsBytes(GPT_P1_GROWN * 512)),
  },
  {
    name: "GPT with less than 1 MiB after the last partition (growpart's fudge)",
    layout: gptExt4(GPT_P1, gptLastLba(OLD), mkfsBytes(GPT_P1 * 512), {
      diskSize: OLD + 512 * 1024,
    }),
  },
  {
    name: 'LVM grown: PV, LV and filesystem',
    layout: gptLvm(GPT_P1_GROWN, gptLastLba(NEW), dataLv(NEW_PV), NEW_PV),
  },
];

interface RefuseRow {
  name: string;
  layout: GuestLayout;
  code: GuestGrowthErrorCode;
  reason: RegExp;
  remedy: RegExp;
}

const refuseRows: RefuseRow[] = [
  {
    name: 'the filesystem is on a partition that is not the last',
    layout: guestLayout({
      lsblk: partitioned('gpt', [
        part(1, 8 * 1024 * 2048, { fstype: 'ext4', mountpoint: '/data' }),
        part(2, GPT_P1 - 8 * 1024 * 2048, { fstype: 'swap' }),
      ]),
      sfdisk: {
        [DISK]: sfdiskOutput(
          DISK,
          'gpt',
          [
            { number: 1, start: 2048, size: 8 * 1024 * 2048 },
            { number: 2, start: 2048 + 8 * 1024 * 2048, size: GPT_P1 - 8 * 1024 * 2048 },
          ],
          gptLastLba(OLD),
        ),
      },
      filesystems: { [`${DISK}1`]: fsSize('ext4', 8 * GiB) },
    }),
    code: 'GUESTGROW_NOT_LAST_PARTITION',
    reason: /on \/dev\/vdb1, which is not its last partition \(\/dev\/vdb2 follows it\)/,
    remedy: /move or remove \/dev\/vdb2/,
  },
  {
    name: 'the filesystem is not mounted',
    layout: guestLayout({
      lsblk: unpartitioned('ext4', null),
      filesystems: { [DISK]: fsSize('ext4', mkfsBytes(OLD)) },
    }),
    code: 'GUESTGROW_NOT_MOUNTED',
    reason: /ext4 on \/dev\/vdb is not mounted in the guest/,
    remedy: /mount it in the guest/,
  },
  {
    name: 'a LUKS layer on the partition',
    layout: guestLayout({
      lsblk: partitioned('gpt', [
        part(1, GPT_P1, {
          fstype: 'crypto_LUKS',
          children: [
            {
              name: '/dev/mapper/data',
              kname: '/dev/dm-0',
              type: 'crypt',
              size: GPT_P1 * 512 - 16 * MiB,
              fstype: 'ext4',
              mountpoint: '/data',
            },
          ],
        }),
      ]),
      sfdisk: tableOfOne('gpt', GPT_P1, gptLastLba(OLD)),
    }),
    code: 'GUESTGROW_ENCRYPTED',
    reason: /encrypted \(LUKS\) layer \(opened as \/dev\/mapper\/data\)/,
    remedy: /cryptsetup resize \/dev\/mapper\/data/,
  },
  {
    name: 'a filesystem the core does not grow (vfat)',
    layout: guestLayout({ lsblk: unpartitioned('vfat', '/boot/efi') }),
    code: 'GUESTGROW_UNSUPPORTED_FILESYSTEM',
    reason: /holds vfat, which voe does not grow/,
    remedy: /its own tools/,
  },
  {
    name: 'tools missing in the guest: each named with its packages',
    layout: gptExt4(GPT_P1, gptLastLba(OLD), mkfsBytes(GPT_P1 * 512), { tools: ['partx'] }),
    code: 'GUESTGROW_TOOLS_MISSING',
    reason:
      /lacks growpart \(Debian: cloud-guest-utils, RHEL: cloud-utils-growpart\) or sfdisk \(Debian: fdisk, RHEL: util-linux\), resize2fs \(Debian: e2fsprogs, RHEL: e2fsprogs\)$/,
    remedy:
      /apt-get install cloud-guest-utils e2fsprogs; dnf install cloud-utils-growpart e2fsprogs/,
  },
  {
    name: 'LVM without lvm2 in the guest',
    layout: guestLayout({
      lsblk: unpartitioned('LVM2_member', null),
      tools: ALL_TOOLS.filter((tool) => tool !== 'pvresize' && tool !== 'lvextend'),
    }),
    code: 'GUESTGROW_TOOLS_MISSING',
    reason:
      /LVM physical volume, and the guest lacks pvresize \(Debian: lvm2, RHEL: lvm2\), lvextend/,
    remedy: /apt-get install lvm2/,
  },
  {
    name: 'several logical volumes could take the space: all listed',
    layout: gptLvm(GPT_P1, gptLastLba(OLD), [
      { name: 'data', bytes: 6 * GiB, fstype: 'ext4', mountpoint: '/data' },
      { name: 'logs', bytes: 2 * GiB, fstype: 'xfs', mountpoint: '/var/log' },
    ]),
    code: 'GUESTGROW_SEVERAL_LOGICAL_VOLUMES',
    reason:
      /2 logical volumes .*: \/dev\/vg0\/data \(mounted at \/data\), \/dev\/vg0\/logs \(mounted at \/var\/log\); voe does not choose/,
    remedy: /pvresize \/dev\/vdb1, then lvextend --resizefs/,
  },
  {
    name: 'a filesystem larger than its disk would shrink',
    layout: guestLayout({
      lsblk: unpartitioned('xfs', '/data', OLD),
      filesystems: { [DISK]: fsSize('xfs', NEW) },
    }),
    code: 'GUESTGROW_WOULD_SHRINK',
    reason: /xfs on \/dev\/vdb \(20\.0 GiB\) is larger than its device would be \(10\.0 GiB\)/,
    remedy: /made smaller/,
  },
  {
    name: 'a partition table that reaches past the disk would shrink',
    layout: guestLayout({
      lsblk: partitioned(
        'gpt',
        [part(1, GPT_P1_GROWN, { fstype: 'ext4', mountpoint: '/data' })],
        OLD,
      ),
      sfdisk: tableOfOne('gpt', GPT_P1_GROWN, gptLastLba(NEW)),
      filesystems: { [`${DISK}1`]: fsSize('ext4', mkfsBytes(GPT_P1 * 512)) },
    }),
    code: 'GUESTGROW_WOULD_SHRINK',
    reason: /\/dev\/vdb1 ends at .* past where a partition may end/,
    remedy: /smaller than its partition table/,
  },
  {
    name: 'a logical partition of an MBR extended one',
    layout: guestLayout({
      lsblk: partitioned('dos', [
        part(1, 2048, {}),
        part(5, DOS_P1 - 4096, { fstype: 'ext4', mountpoint: '/data' }),
      ]),
      sfdisk: {
        [DISK]: sfdiskOutput(DISK, 'dos', [
          { number: 1, start: 2048, size: DOS_P1, type: '5' },
          { number: 5, start: 4096, size: DOS_P1 - 2048 },
        ]),
      },
      filesystems: { [`${DISK}5`]: fsSize('ext4', mkfsBytes((DOS_P1 - 2048) * 512)) },
    }),
    code: 'GUESTGROW_UNSUPPORTED_LAYOUT',
    reason: /logical partition inside an extended one/,
    remedy: /grow the extended partition/,
  },
  {
    name: 'a disk the guest does not list',
    layout: guestLayout({ lsblk: lsblkOutput({ name: '/dev/vda', type: 'disk', size: NEW }) }),
    code: 'GUESTGROW_DEVICE_NOT_FOUND',
    reason: /lists no disk \/dev\/vdb/,
    remedy: /attached/,
  },
  {
    name: 'a filesystem whose size was not read',
    layout: guestLayout({ lsblk: unpartitioned('ext4', '/data') }),
    code: 'GUESTGROW_LAYOUT_UNREADABLE',
    reason: /size of ext4 on \/dev\/vdb was not read/,
    remedy: /guest agent/,
  },
];

describe('planGuestGrowth', () => {
  for (const row of growRows) {
    it(`grows: ${row.name}`, () => {
      const plan = planGuestGrowth(row.layout, { disk: DISK });
      assert.strictEqual(plan.kind, 'grow', plan.kind === 'refuse' ? plan.error.message : '');
      if (plan.kind !== 'grow') return;
      assert.strictEqual(plan.guest, 'linux');
      assert.deepStrictEqual(
        plan.steps.map((step) => step.argv),
        row.argv,
      );
      plan.steps.forEach((step, i) => {
        assert.strictEqual(step.stdin, row.stdin?.[i], `stdin of step ${i}`);
        assert.isAbove(step.expect.atLeastBytes, step.expect.beforeBytes, `step ${i} grows`);
        assert.isNotEmpty(step.why);
      });
    });
  }

  for (const row of grownRows) {
    it(`plans nothing once grown: ${row.name}`, () => {
      const plan = planGuestGrowth(row.layout, { disk: DISK });
      assert.deepStrictEqual(plan, { kind: 'grow', guest: 'linux', steps: [] });
    });
  }

  for (const row of refuseRows) {
    it(`refuses: ${row.name}`, () => {
      const plan = planGuestGrowth(row.layout, { disk: DISK });
      assert.strictEqual(plan.kind, 'refuse');
      if (plan.kind !== 'refuse') return;
      assert.strictEqual(plan.error.code, row.code);
      assert.match(plan.error.reason, row.reason);
      assert.match(plan.error.remedy, row.remedy);
      assert.include(plan.error.message, 'nothing was changed');
    });
  }

  it('sizes each step as the tools will: GPT partition to the disk less the 33 backup sectors', () => {
    const plan = planGuestGrowth(growRows[4]!.layout, { disk: DISK });
    assert.strictEqual(plan.kind, 'grow');
    if (plan.kind !== 'grow') return;
    const [relocate, grow, kernel, fs] = plan.steps;
    assert.deepStrictEqual(relocate?.expect, {
      reading: 'table-end',
      of: DISK,
      beforeBytes: (gptLastLba(OLD) + 1) * 512,
      atLeastBytes: (gptLastLba(NEW) + 1) * 512,
    });
    assert.strictEqual(grow?.expect.beforeBytes, GPT_P1 * 512);
    assert.strictEqual(grow?.expect.atLeastBytes, GPT_P1_GROWN * 512 - MiB + 512);
    assert.strictEqual(kernel?.expect.reading, 'kernel');
    assert.deepStrictEqual(fs?.expect, {
      reading: 'filesystem',
      of: `${DISK}1`,
      beforeBytes: mkfsBytes(GPT_P1 * 512),
      atLeastBytes: mkfsBytes(GPT_P1_GROWN * 512) - 4096,
    });
  });
});
