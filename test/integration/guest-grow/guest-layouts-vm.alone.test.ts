/**
 * Guest growth on a real VM (docs/guest-growth.md): one lab guest (Debian's kernel, busybox,
 * qemu-guest-agent and the guest's own growth tools from Debian's packages) under TCG, with one
 * hotplugged SCSI disk per layout. Each layout is built in the guest with its tools through the
 * agent, holding a file of random data; the storage grows the disk and the lab's virt-handler step
 * runs `virsh blockresize`; once the guest's kernel shows the new size, the guest-agent runner
 * reads the guest's report (readGuestLayout: lsblk, sfdisk, pvs/vgs/lvs, the filesystem's own
 * size), planGuestGrowth plans it, the plan is checked against what the layout needs and
 * runGuestGrowth runs it in the guest; then statfs of the mount point
 * shows the growth, the data is intact, and a second reading plans nothing. Alone: it boots a VM
 * on a 2-core machine.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { startLabVm, startLibvirt, type LabVm } from '../../../src/demo/index.js';
import { testCacheDir } from '../../support/use-control-plane.js';
import { eventuallyValue } from '../../support/eventually.js';
import {
  buildLabLayout,
  partitionNode,
  type LabFilesystem,
  type LabLayout,
  type LabLayoutKind,
} from '../../support/guest-grow/lab-layouts.js';
import {
  labGuestBlockAttribute,
  labGuestOutput,
} from '../../support/guest-grow/lab-guest-commands.js';
import { labStatfsBytes } from '../../support/guest-grow/lab-statfs.js';
import { growLabLayout, planLabDisk } from '../../support/guest-grow/grow-lab-layout.js';

const MI = 1024n ** 2n;
const GI = 1024n ** 3n;

interface LayoutCase {
  name: string;
  kind: LabLayoutKind;
  filesystem: LabFilesystem;
  /** The guest has no growpart (removed before this case): the plan takes sfdisk. */
  withoutGrowpart?: boolean;
  /** The plan's argv, from the layout as built. */
  argv?: (layout: LabLayout) => string[][];
  /** The refusal's code instead. */
  refused?: string;
}

const partx = (l: LabLayout): string[] => ['partx', '--update', '--nr', '1', l.disk];
const growpart = (l: LabLayout): string[] => ['growpart', l.disk, '1'];
const sfdiskN = (l: LabLayout): string[] => [
  'sfdisk',
  '--no-reread',
  '--no-tell-kernel',
  '-N',
  '1',
  l.disk,
];

/** The layouts, in the order they run (those without growpart last: it is removed once). */
const CASES: readonly LayoutCase[] = [
  {
    name: 'unpartitioned ext4: resize2fs, online',
    kind: 'unpartitioned',
    filesystem: 'ext4',
    argv: (l) => [['resize2fs', l.disk]],
  },
  {
    name: 'unpartitioned xfs: xfs_growfs',
    kind: 'unpartitioned',
    filesystem: 'xfs',
    argv: (l) => [['xfs_growfs', '-d', l.mountPoint]],
  },
  {
    name: 'unpartitioned btrfs: btrfs filesystem resize max',
    kind: 'unpartitioned',
    filesystem: 'btrfs',
    argv: (l) => [['btrfs', 'filesystem', 'resize', 'max', l.mountPoint]],
  },
  {
    name: 'GPT, ext4 on the last partition: growpart, partx, resize2fs',
    kind: 'gpt',
    filesystem: 'ext4',
    argv: (l) => [growpart(l), partx(l), ['resize2fs', partitionNode(l.disk, 1)]],
  },
  {
    name: 'MBR, xfs on the last partition: growpart, partx, xfs_growfs',
    kind: 'mbr',
    filesystem: 'xfs',
    argv: (l) => [growpart(l), partx(l), ['xfs_growfs', '-d', l.mountPoint]],
  },
  {
    name: 'LVM, ext4 on the only LV of a PV on a GPT partition: growpart, partx, pvresize, lvextend, resize2fs',
    kind: 'lvm',
    filesystem: 'ext4',
    argv: (l) => [
      growpart(l),
      partx(l),
      ['pvresize', partitionNode(l.disk, 1)],
      ['lvextend', '-l', '+100%FREE', `/dev/vg-${l.disk.slice('/dev/'.length)}/data`],
      ['resize2fs', l.device],
    ],
  },
  {
    name: 'ext4 on a partition another one follows: refused',
    kind: 'not-last',
    filesystem: 'ext4',
    refused: 'GUESTGROW_NOT_LAST_PARTITION',
  },
  {
    name: 'GPT, ext4, no growpart in the guest: sfdisk moves the backup header, then grows the partition',
    kind: 'gpt',
    filesystem: 'ext4',
    withoutGrowpart: true,
    argv: (l) => [
      ['sfdisk', '--relocate', 'gpt-bak-std', l.disk],
      sfdiskN(l),
      partx(l),
      ['resize2fs', partitionNode(l.disk, 1)],
    ],
  },
  {
    name: 'MBR, btrfs, no growpart in the guest: sfdisk grows the partition',
    kind: 'mbr',
    filesystem: 'btrfs',
    withoutGrowpart: true,
    argv: (l) => [sfdiskN(l), partx(l), ['btrfs', 'filesystem', 'resize', 'max', l.mountPoint]],
  },
];

/**
 * The domains: at most five hotplugged disks each (more made the lab guest's agent disconnect under
 * TCG here), each case's disk with its own size, so the guest's disk is found by its size.
 */
const PER_DOMAIN = 5;
const DOMAINS = Array.from({ length: Math.ceil(CASES.length / PER_DOMAIN) }, (_, domain) =>
  CASES.slice(domain * PER_DOMAIN, (domain + 1) * PER_DOMAIN).map((layoutCase, index) => ({
    layoutCase,
    target: `sd${String.fromCharCode('a'.charCodeAt(0) + index)}`,
    bytes: GI + BigInt(index) * 8n * MI,
  })),
);

const libvirt = await startLibvirt();
after(() => libvirt.stop());

/** The guest's /dev/sdX of each lab disk, by its size, once the guest lists them all. */
async function guestDisksBySize(vm: LabVm, count: number): Promise<Map<bigint, string>> {
  return eventuallyValue(
    async () =>
      new Map(
        (await labGuestBlockAttribute(vm, 'sd', 'size')).map(
          ([name, sectors]) => [BigInt(sectors) * 512n, `/dev/${name}`] as const,
        ),
      ),
    (found) => found.size >= count,
    'the guest lists every hotplugged disk',
    30_000,
  );
}

DOMAINS.forEach((disks, domain) => {
  describe(`guest growth on a real VM: the layouts (domain ${domain + 1} of ${DOMAINS.length})`, function () {
    let vm: LabVm | undefined;
    let bySize = new Map<bigint, string>();
    before(async function () {
      vm = await startLabVm({
        cacheDir: testCacheDir(),
        namespace: 'guest-grow',
        name: `layouts-${domain + 1}`,
        disks: disks.map((disk) => ({
          target: disk.target,
          bytes: disk.bytes,
          bus: 'scsi' as const,
          hotplug: true,
        })),
      });
      bySize = await guestDisksBySize(vm, disks.length);
    });
    after(() => vm?.destroy());

    for (const { layoutCase, target, bytes } of disks)
      it(layoutCase.name, async function () {
        const lab = vm!;
        if (layoutCase.withoutGrowpart)
          await labGuestOutput(lab, { argv: ['rm', '-f', '/usr/bin/growpart'] });
        const disk = bySize.get(bytes)!;
        const layout = await buildLabLayout(lab, layoutCase.kind, layoutCase.filesystem, disk);
        const before = await labStatfsBytes(lab, layout.mountPoint);
        const grown = await growLabLayout(lab, target, disk, bytes + GI);
        assert.strictEqual(grown.resized, bytes + GI);
        const { plan } = grown;
        if (layoutCase.refused) {
          assert.strictEqual(plan.kind, 'refuse');
          assert.strictEqual(grown.run.outcome, 'refused');
          assert.deepStrictEqual(grown.run.steps, [], 'nothing ran');
          if (plan.kind === 'refuse') assert.strictEqual(plan.error.code, layoutCase.refused);
          assert.strictEqual(await labStatfsBytes(lab, layout.mountPoint), before);
        } else {
          assert.strictEqual(plan.kind, 'grow', JSON.stringify(plan));
          if (plan.kind === 'grow')
            assert.deepStrictEqual(
              plan.steps.map((step) => [...step.argv]),
              layoutCase.argv!(layout),
            );
          assert.strictEqual(grown.run.outcome, 'grown', JSON.stringify(grown.run));
          for (const step of grown.run.steps.filter((record) => record.ran))
            assert.strictEqual(step.exitCode, 0, `${step.argv.join(' ')}: ${step.stderr ?? ''}`);
          const after = await labStatfsBytes(lab, layout.mountPoint);
          // statfs (what df shows) took nearly all of the 1 GiB more (less the filesystem's metadata).
          assert.isAbove(after - before, Number(GI) * 0.9, `statfs ${before} -> ${after}`);
          assert.deepStrictEqual(
            await planLabDisk(lab, disk),
            { kind: 'grow', guest: 'linux', steps: [] },
            'a second run plans nothing',
          );
        }
        assert.strictEqual(
          (await labGuestOutput(lab, { argv: ['md5sum', layout.dataFile] })).trim(),
          layout.checksum,
          'the data is intact',
        );
      });
  });
});
