/**
 * runGuestGrowth and readGuestLayout over a scripted guest agent: for each layout, the sequence of
 * what the guest shows as the steps run -> the commands run, in order, with their checks; a
 * second run plans nothing; the first failure stops the run; bad or truncated output from the
 * guest is a clear error with nothing run.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  planGuestGrowth,
  planWindowsGrowth,
  type GuestGrowthPlan,
} from '../../../../src/fsresize/index.js';
import {
  linuxReadings,
  readGuestLayout,
  readWindowsLayout,
  runGuestGrowth,
  VmLock,
  windowsReadings,
} from '../../../../src/guest-grow/index.js';
import { dumpe2fsHeader } from '../../../support/guest-grow/dumpe2fs-output.js';
import {
  E_OFFSET,
  RESIZE_E,
  WINDOWS_DISK,
  grownDriveBytes,
  windowsAgent,
} from '../../../support/guest-grow/windows-guest.js';
import {
  lsblkOutput,
  GiB,
  lvmReport,
  MiB,
  sfdiskOutput,
  type LsblkNode,
} from '../../../support/fsresize/guest-outputs.js';
import { GUEST_TOOLS } from '../../../../src/guest-grow/read/guest-tools.js';
import {
  ScriptedAgent,
  type GuestStage,
  type ScriptedReply,
} from '../../../support/guest-grow/scripted-agent.js';
import {
  EXT_TOOLS,
  LSBLK,
  LVS,
  PAGE,
  PVS,
  VGS,
  wholeDisk,
} from '../../../support/guest-grow/guest-stages.js';

const G = GiB;
/** GPT on /dev/vdb (10 GiB, then 20 GiB: 41943040 sectors), ext4 on its only partition. */
function gpt(options: {
  diskBytes: number;
  lastLba: number;
  partSectors: number;
  kernelPartBytes: number;
  fsBlocks: number;
}): GuestStage {
  const part: LsblkNode = {
    name: '/dev/vdb1',
    type: 'part',
    size: options.kernelPartBytes,
    fstype: 'ext4',
    mountpoint: '/data',
    pttype: 'gpt',
  };
  return {
    [LSBLK]: lsblkOutput({
      name: '/dev/vdb',
      type: 'disk',
      size: options.diskBytes,
      pttype: 'gpt',
      children: [part],
    }),
    'sfdisk --json /dev/vdb': sfdiskOutput(
      '/dev/vdb',
      'gpt',
      [{ number: 1, start: 2048, size: options.partSectors }],
      options.lastLba,
    ),
    'dumpe2fs -h /dev/vdb1': dumpe2fsHeader(options.fsBlocks),
    ...PAGE,
  };
}

// A 10 GiB GPT disk: last usable LBA 20971486 (20971520 sectors less 34), partition 1 fills it;
// grown to 20 GiB: last usable LBA 41943006, the partition 41940959 sectors.
const GPT_OLD = { diskBytes: 20 * G, lastLba: 20971486, partSectors: 20969439 };
const GPT_BEFORE = gpt({ ...GPT_OLD, kernelPartBytes: 20969439 * 512, fsBlocks: 2621179 });
const GPT_RELOCATED = gpt({
  ...GPT_OLD,
  lastLba: 41943006,
  kernelPartBytes: 20969439 * 512,
  fsBlocks: 2621179,
});
const GPT_PART_GROWN = gpt({
  ...GPT_OLD,
  lastLba: 41943006,
  partSectors: 41940959,
  kernelPartBytes: 20969439 * 512,
  fsBlocks: 2621179,
});
const GPT_KERNEL_TOLD = gpt({
  ...GPT_OLD,
  lastLba: 41943006,
  partSectors: 41940959,
  kernelPartBytes: 41940959 * 512,
  fsBlocks: 2621179,
});
const GPT_GROWN = gpt({
  ...GPT_OLD,
  lastLba: 41943006,
  partSectors: 41940959,
  kernelPartBytes: 41940959 * 512,
  fsBlocks: 5242619,
});

/** An LVM PV on the whole disk /dev/vdb, volume group vg0 (4 MiB extents), its one LV with ext4 at /data. */
function lvm(options: {
  diskBytes: number;
  pvBytes: number;
  vgFree: number;
  lvBytes: number;
  fsBlocks: number;
}): GuestStage {
  return {
    [LSBLK]: lsblkOutput({
      name: '/dev/vdb',
      type: 'disk',
      size: options.diskBytes,
      fstype: 'LVM2_member',
      children: [
        {
          name: '/dev/mapper/vg0-data',
          type: 'lvm',
          size: options.lvBytes,
          fstype: 'ext4',
          mountpoint: '/data',
        },
      ],
    }),
    [PVS]: lvmReport('pv', [
      {
        pv_name: '/dev/vdb',
        vg_name: 'vg0',
        pv_size: String(options.pvBytes),
        pv_free: String(options.pvBytes - options.lvBytes),
        pe_start: String(MiB),
        dev_size: String(options.diskBytes),
      },
    ]),
    [VGS]: lvmReport('vg', [
      { vg_name: 'vg0', vg_free: String(options.vgFree), vg_extent_size: String(4 * MiB) },
    ]),
    [LVS]: lvmReport('lv', [
      {
        lv_name: 'data',
        vg_name: 'vg0',
        lv_path: '/dev/vg0/data',
        lv_dm_path: '/dev/mapper/vg0-data',
        lv_size: String(options.lvBytes),
        devices: '/dev/vdb(0)',
      },
    ]),
    'dumpe2fs -h /dev/mapper/vg0-data': dumpe2fsHeader(options.fsBlocks),
    ...PAGE,
  };
}

// pv_size is whole 4 MiB extents after pe_start (1 MiB): 10 GiB less 4 MiB, then 20 GiB less 4 MiB.
const PV_OLD = 10 * G - 4 * MiB;
const PV_NEW = 20 * G - 4 * MiB;

interface Case {
  name: string;
  stages: GuestStage[];
  tools: string[];
  ran: Array<{ argv: string[]; stdin?: string }>;
}

const GROWN: Case[] = [
  {
    name: 'an unpartitioned disk with ext4',
    stages: [wholeDisk(20 * G, 2621440), wholeDisk(20 * G, 5242880)],
    tools: EXT_TOOLS,
    ran: [{ argv: ['resize2fs', '/dev/vdb'] }],
  },
  {
    name: 'GPT without growpart: sfdisk moves the backup header, grows the partition; partx; resize2fs',
    stages: [GPT_BEFORE, GPT_RELOCATED, GPT_PART_GROWN, GPT_KERNEL_TOLD, GPT_GROWN],
    tools: [...EXT_TOOLS, 'sfdisk', 'partx'],
    ran: [
      { argv: ['sfdisk', '--relocate', 'gpt-bak-std', '/dev/vdb'] },
      {
        argv: ['sfdisk', '--no-reread', '--no-tell-kernel', '-N', '1', '/dev/vdb'],
        stdin: ', +\n',
      },
      { argv: ['partx', '--update', '--nr', '1', '/dev/vdb'] },
      { argv: ['resize2fs', '/dev/vdb1'] },
    ],
  },
  {
    name: 'GPT with growpart',
    stages: [GPT_BEFORE, GPT_PART_GROWN, GPT_KERNEL_TOLD, GPT_GROWN],
    tools: [...EXT_TOOLS, 'growpart', 'sfdisk', 'partx'],
    ran: [
      { argv: ['growpart', '/dev/vdb', '1'] },
      { argv: ['partx', '--update', '--nr', '1', '/dev/vdb'] },
      { argv: ['resize2fs', '/dev/vdb1'] },
    ],
  },
  {
    name: 'LVM: pvresize, lvextend of the only LV, then resize2fs',
    stages: [
      lvm({
        diskBytes: 20 * G,
        pvBytes: PV_OLD,
        vgFree: 0,
        lvBytes: PV_OLD,
        fsBlocks: PV_OLD / 4096,
      }),
      lvm({
        diskBytes: 20 * G,
        pvBytes: PV_NEW,
        vgFree: 10 * G,
        lvBytes: PV_OLD,
        fsBlocks: PV_OLD / 4096,
      }),
      lvm({
        diskBytes: 20 * G,
        pvBytes: PV_NEW,
        vgFree: 0,
        lvBytes: PV_NEW,
        fsBlocks: PV_OLD / 4096,
      }),
      lvm({
        diskBytes: 20 * G,
        pvBytes: PV_NEW,
        vgFree: 0,
        lvBytes: PV_NEW,
        fsBlocks: PV_NEW / 4096,
      }),
    ],
    tools: [...EXT_TOOLS, 'pvs', 'pvresize', 'lvextend'],
    ran: [
      { argv: ['pvresize', '/dev/vdb'] },
      { argv: ['lvextend', '-l', '+100%FREE', '/dev/vg0/data'] },
      { argv: ['resize2fs', '/dev/mapper/vg0-data'] },
    ],
  },
];

async function planOf(agent: ScriptedAgent): Promise<GuestGrowthPlan> {
  return planGuestGrowth(await readGuestLayout(agent, { disk: '/dev/vdb' }), { disk: '/dev/vdb' });
}

function run(agent: ScriptedAgent, plan: GuestGrowthPlan, lock = new VmLock()) {
  return runGuestGrowth(agent, plan, {
    vm: 'lab/vm1',
    read: linuxReadings(agent, { disk: '/dev/vdb' }),
    lock,
  });
}

/** The step commands the agent was given, with their standard input when they had one. */
function stepsRun(agent: ScriptedAgent): Array<{ argv: string[]; stdin?: string }> {
  const ran = new Set(agent.ran.map((argv) => argv.join(' ')));
  return agent.calls
    .filter((call) => ran.has(call.argv.join(' ')))
    .map((call) => ({
      argv: [...call.argv],
      ...(call.stdin === undefined ? {} : { stdin: call.stdin }),
    }));
}

describe('runGuestGrowth', () => {
  for (const each of GROWN) {
    it(`${each.name}: the steps in order, each size checked; a second run plans nothing`, async () => {
      const agent = new ScriptedAgent(each.stages, each.tools);
      const result = await run(agent, await planOf(agent));
      assert.strictEqual(result.outcome, 'grown', result.error?.message);
      assert.deepStrictEqual(stepsRun(agent), each.ran);
      for (const step of result.steps) {
        assert.isTrue(step.ran);
        assert.strictEqual(step.exitCode, 0);
        assert.isAtLeast(step.afterBytes!, step.targetBytes);
        assert.isBelow(step.beforeBytes!, step.targetBytes);
      }
      for (const call of agent.calls) assert.isAbove(call.timeoutMs, 0);
      const again = await planOf(agent);
      assert.deepStrictEqual(again, { kind: 'grow', guest: 'linux', steps: [] });
      const second = await run(agent, again);
      assert.strictEqual(second.outcome, 'already-grown');
      assert.deepStrictEqual(stepsRun(agent), each.ran, 'nothing more ran');
    });
  }

  it('finishes a run stopped midway: the steps whose result holds are recorded, not run', async () => {
    const planned = await planOf(
      new ScriptedAgent([GPT_BEFORE], [...EXT_TOOLS, 'sfdisk', 'partx']),
    );
    const agent = new ScriptedAgent(
      [GPT_PART_GROWN, GPT_KERNEL_TOLD, GPT_GROWN],
      [...EXT_TOOLS, 'sfdisk', 'partx'],
    );
    const result = await run(agent, planned);
    assert.strictEqual(result.outcome, 'grown');
    assert.deepStrictEqual(
      result.steps.map((step) => step.ran),
      [false, false, true, true],
    );
    assert.deepStrictEqual(agent.ran, [
      ['partx', '--update', '--nr', '1', '/dev/vdb'],
      ['resize2fs', '/dev/vdb1'],
    ]);
  });

  const FAILURES: Array<{
    name: string;
    stages: GuestStage[];
    steps?: Record<string, ScriptedReply>;
    code: string;
    ran: string[][];
    said: RegExp;
  }> = [
    {
      name: 'a step exiting non-zero stops the run there',
      stages: [GPT_BEFORE, GPT_RELOCATED],
      steps: {
        'sfdisk --relocate gpt-bak-std /dev/vdb': {
          exitCode: 1,
          stderr: 'sfdisk: /dev/vdb: failed to relocate backup header\n',
        },
      },
      code: 'GUESTRUN_STEP_FAILED',
      ran: [['sfdisk', '--relocate', 'gpt-bak-std', '/dev/vdb']],
      said: /exited with 1 in the guest: sfdisk: \/dev\/vdb: failed to relocate backup header/,
    },
    {
      name: 'a step whose size is not reached afterwards stops the run',
      stages: [GPT_BEFORE, GPT_BEFORE],
      code: 'GUESTRUN_SIZE_NOT_REACHED',
      ran: [['sfdisk', '--relocate', 'gpt-bak-std', '/dev/vdb']],
      said: /the table-end reading of \/dev\/vdb is 10.0 GiB afterwards, short of 20.0 GiB/,
    },
    {
      name: 'a step that does not finish within its timeout stops the run',
      stages: [GPT_BEFORE, GPT_RELOCATED],
      steps: { 'sfdisk --relocate gpt-bak-std /dev/vdb': { timedOut: true } },
      code: 'GUESTRUN_STEP_TIMEOUT',
      ran: [['sfdisk', '--relocate', 'gpt-bak-std', '/dev/vdb']],
      said: /did not finish in the guest within 300 s; it may still run there/,
    },
  ];
  for (const each of FAILURES) {
    it(each.name, async () => {
      const agent = new ScriptedAgent(each.stages, [...EXT_TOOLS, 'sfdisk', 'partx'], each.steps);
      const result = await run(agent, await planOf(agent));
      assert.strictEqual(result.outcome, 'failed');
      assert.strictEqual(result.error?.code, each.code);
      assert.match(result.error!.message, each.said);
      assert.deepStrictEqual(agent.ran, each.ran);
      assert.lengthOf(result.steps, 1, 'the steps after the failure are not recorded as run');
    });
  }

  it('refuses to run when a reading is below what the plan was made from (the guest changed)', async () => {
    const planned = await planOf(
      new ScriptedAgent([GPT_BEFORE], [...EXT_TOOLS, 'sfdisk', 'partx']),
    );
    const shrunk = gpt({
      ...GPT_OLD,
      lastLba: 20000000,
      kernelPartBytes: 20969439 * 512,
      fsBlocks: 2621179,
    });
    const agent = new ScriptedAgent([shrunk], [...EXT_TOOLS, 'sfdisk', 'partx']);
    const result = await run(agent, planned);
    assert.strictEqual(result.error?.code, 'GUESTRUN_CHANGED');
    assert.deepStrictEqual(agent.ran, []);
  });

  it('runs nothing for a refused plan', async () => {
    const agent = new ScriptedAgent(
      [
        {
          [LSBLK]: lsblkOutput({
            name: '/dev/vdb',
            type: 'disk',
            size: 20 * G,
            fstype: 'vfat',
            mountpoint: '/boot',
          }),
        },
      ],
      EXT_TOOLS,
    );
    const result = await run(agent, await planOf(agent));
    assert.strictEqual(result.outcome, 'refused');
    assert.strictEqual(result.error?.code, 'GUESTGROW_UNSUPPORTED_FILESYSTEM');
    assert.deepStrictEqual(agent.ran, []);
  });

  it('runs one operation per VM at a time', async () => {
    const lock = new VmLock();
    let active = 0;
    let most = 0;
    const slow = (agent: ScriptedAgent): ScriptedAgent => {
      const exec = agent.exec.bind(agent);
      agent.exec = async (command) => {
        active++;
        most = Math.max(most, active);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active--;
        return exec(command);
      };
      return agent;
    };
    const first = slow(
      new ScriptedAgent([wholeDisk(20 * G, 2621440), wholeDisk(20 * G, 5242880)], EXT_TOOLS),
    );
    const second = slow(
      new ScriptedAgent([wholeDisk(20 * G, 2621440), wholeDisk(20 * G, 5242880)], EXT_TOOLS),
    );
    const [plan1, plan2] = [await planOf(first), await planOf(second)];
    most = 0;
    const results = await Promise.all([run(first, plan1, lock), run(second, plan2, lock)]);
    assert.deepStrictEqual(
      results.map((r) => r.outcome),
      ['grown', 'grown'],
    );
    assert.strictEqual(most, 1);
  });

  it("runs a Windows plan's PowerShell argv through the same agent, checking Get-Partition's size", async () => {
    const agent = windowsAgent([
      { diskBytes: 20 * G, driveBytes: 10 * G - E_OFFSET },
      { diskBytes: 20 * G, driveBytes: grownDriveBytes(20 * G) },
    ]);
    const target = { disk: WINDOWS_DISK };
    const plan = planWindowsGrowth(await readWindowsLayout(agent, target), target);
    const result = await runGuestGrowth(agent, plan, {
      vm: 'lab/win1',
      read: windowsReadings(agent, target),
      lock: new VmLock(),
    });
    assert.strictEqual(result.outcome, 'grown', result.error?.message);
    assert.deepStrictEqual(agent.ran, [RESIZE_E]);
  });
});

describe('readGuestLayout', () => {
  it('reads the tools, lsblk, the partition table and the filesystem, each as an argument list', async () => {
    const agent = new ScriptedAgent([GPT_BEFORE], [...EXT_TOOLS, 'sfdisk']);
    const layout = await readGuestLayout(agent, { disk: '/dev/vdb' });
    assert.deepStrictEqual(
      agent.calls.map((call) =>
        call.argv[0] === '/bin/sh'
          ? call.argv.slice(0, 2).concat(call.argv.slice(3))
          : [...call.argv],
      ),
      [
        ['/bin/sh', '-c', 'sh', ...GUEST_TOOLS],
        LSBLK.split(' '),
        ['sfdisk', '--json', '/dev/vdb'],
        ['getconf', 'PAGESIZE'],
        ['dumpe2fs', '-h', '/dev/vdb1'],
      ],
    );
    assert.deepStrictEqual(layout.filesystems['/dev/vdb1'], {
      bytes: 2621179 * 4096,
      blockBytes: 4096,
      extPageBytes: 4096,
      ext64bit: true,
    });
    assert.deepStrictEqual([...layout.tools].sort(), [
      'dumpe2fs',
      'getconf',
      'resize2fs',
      'sfdisk',
    ]);
  });

  /**
   * What the lab guest's lsblk printed just after `sfdisk -N 1` rewrote the MBR of /dev/sdd: btrfs
   * mounted on /dev/sdd1, but udev's database, which the change event for sdd1 was rewriting, named
   * no filesystem, so FSTYPE was null.
   */
  const MBR_BTRFS_NO_FSTYPE = (fstype: string | null): GuestStage => ({
    [LSBLK]: lsblkOutput({
      name: '/dev/sdd',
      type: 'disk',
      size: 2 * G + 24 * MiB,
      pttype: 'dos',
      children: [
        {
          name: '/dev/sdd1',
          type: 'part',
          size: G + 23 * MiB,
          fstype,
          mountpoint: '/mnt/mbr-sdd',
        },
      ],
    }),
    'sfdisk --json /dev/sdd': sfdiskOutput('/dev/sdd', 'dos', [
      { number: 1, start: 2048, size: (G + 23 * MiB) / 512 },
    ]),
    'btrfs inspect-internal dump-super /dev/sdd1': `superblock: bytenr=65536, device=/dev/sdd1\nmagic\t\t\t_BHRfS_M [match]\ntotal_bytes\t\t${G + 23 * MiB}\nsectorsize\t\t4096\nnum_devices\t\t1\ndev_item.total_bytes\t${G + 23 * MiB}\ndev_item.devid\t\t1\n`,
  });
  const MOUNTINFO = 'cat /proc/self/mountinfo';
  const MOUNTED_TYPES: Array<{
    name: string;
    stage: GuestStage;
    fstype: string | null;
    readsMountTable: boolean;
    plan: GuestGrowthPlan['kind'] | string;
  }> = [
    {
      name: 'lsblk names the type: the mount table is not read',
      stage: MBR_BTRFS_NO_FSTYPE('btrfs'),
      fstype: 'btrfs',
      readsMountTable: false,
      plan: 'grow',
    },
    {
      name: "lsblk shows /dev/sdd1 mounted with no FSTYPE (udev's entry rewritten): the mount table's type",
      stage: {
        ...MBR_BTRFS_NO_FSTYPE(null),
        [MOUNTINFO]:
          '22 1 0:20 / / rw,relatime - rootfs rootfs rw\n41 22 0:38 / /mnt/mbr-sdd rw,relatime - btrfs /dev/sdd1 rw,space_cache=v2,subvolid=5,subvol=/\n',
      },
      fstype: 'btrfs',
      readsMountTable: true,
      plan: 'grow',
    },
    {
      name: 'the mount table has nothing at that mount point: no type, refused as not mounted',
      stage: {
        ...MBR_BTRFS_NO_FSTYPE(null),
        [MOUNTINFO]: '22 1 0:20 / / rw,relatime - rootfs rootfs rw\n',
      },
      fstype: null,
      readsMountTable: true,
      plan: 'GUESTGROW_NOT_MOUNTED',
    },
  ];
  for (const each of MOUNTED_TYPES)
    it(each.name, async () => {
      const agent = new ScriptedAgent([each.stage], ['sfdisk', 'partx', 'btrfs']);
      const layout = await readGuestLayout(agent, { disk: '/dev/sdd' });
      const part = layout.blockDevices.find((device) => device.name === '/dev/sdd1');
      assert.strictEqual(part?.fstype, each.fstype);
      assert.strictEqual(
        agent.calls.some((call) => call.argv.join(' ') === MOUNTINFO),
        each.readsMountTable,
        'the mount table is read only when lsblk lacks a mounted type',
      );
      const plan = planGuestGrowth(layout, { disk: '/dev/sdd' });
      assert.strictEqual(plan.kind === 'refuse' ? plan.error.code : plan.kind, each.plan);
      if (plan.kind === 'grow')
        assert.deepStrictEqual(
          plan.steps.map((step) => step.argv.join(' ')),
          [
            'sfdisk --no-reread --no-tell-kernel -N 1 /dev/sdd',
            'partx --update --nr 1 /dev/sdd',
            'btrfs filesystem resize max /mnt/mbr-sdd',
          ],
        );
    });

  const BAD: Array<{ name: string; stage: GuestStage; said: RegExp }> = [
    {
      name: 'lsblk printing what is not JSON',
      stage: { ...GPT_BEFORE, [LSBLK]: 'lsblk: unknown column: PKNAME\n' },
      said: /`lsblk --json` in the guest did not print the JSON voe reads: "lsblk: unknown column/,
    },
    {
      name: 'sfdisk printing a table cut short',
      stage: { ...GPT_BEFORE, 'sfdisk --json /dev/vdb': '{"partitiontable": {"label": "gpt",' },
      said: /`sfdisk --json \/dev\/vdb` in the guest did not print the JSON/,
    },
    {
      name: 'output the agent truncated',
      stage: { ...GPT_BEFORE, [LSBLK]: { stdout: '{"blockdevices": [', stdoutTruncated: true } },
      said: /printed more than the guest agent keeps \(its output was truncated\)/,
    },
    {
      name: 'a reading command failing',
      stage: {
        ...GPT_BEFORE,
        'sfdisk --json /dev/vdb': {
          exitCode: 1,
          stderr: 'sfdisk: cannot open /dev/vdb: Permission denied',
        },
      },
      said: /`sfdisk --json \/dev\/vdb` in the guest exited with 1: sfdisk: cannot open/,
    },
    {
      name: 'dumpe2fs printing no size',
      stage: {
        ...GPT_BEFORE,
        'dumpe2fs -h /dev/vdb1': 'dumpe2fs: Bad magic number in super-block\n',
      },
      said: /printed no size of ext4 on \/dev\/vdb1/,
    },
  ];
  for (const each of BAD) {
    it(`${each.name}: GUESTGROW_LAYOUT_UNREADABLE, nothing run`, async () => {
      const agent = new ScriptedAgent([each.stage], [...EXT_TOOLS, 'sfdisk', 'partx']);
      const error = await readGuestLayout(agent, { disk: '/dev/vdb' }).then(
        () => undefined,
        (e: Error & { code?: string }) => e,
      );
      assert.strictEqual(error?.code, 'GUESTGROW_LAYOUT_UNREADABLE');
      assert.match(error!.message, each.said);
      assert.deepStrictEqual(agent.ran, []);
    });
  }

  it('an agent that cannot be asked is GUESTRUN_AGENT_FAILED, naming the command', async () => {
    const agent = new ScriptedAgent([GPT_BEFORE], EXT_TOOLS);
    agent.exec = async () => {
      throw Object.assign(
        new Error('virsh qemu-agent-command failed: Guest agent is not responding'),
        {},
      );
    };
    const error = await readGuestLayout(agent, { disk: '/dev/vdb' }).then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    );
    assert.strictEqual(error?.code, 'GUESTRUN_AGENT_FAILED');
    assert.match(
      error!.message,
      /could not run \/bin\/sh in the guest: virsh qemu-agent-command failed: Guest agent is not responding/,
    );
  });
});
