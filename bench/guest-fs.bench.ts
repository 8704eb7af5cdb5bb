/**
 * Guest growth benchmark (`npm run bench:guest-fs`): the time from the hypervisor's growth of a
 * disk (`virsh blockresize` returned) until the guest's filesystem has its new size, per layout,
 * on a real VM (the lab guest under TCG with its own growth tools). One domain, one hotplugged
 * SCSI disk per layout, each layout built once in the guest (test/support/guest-grow) and grown
 * RUNS times by 256 MiB: the storage grows the volume, `virsh blockresize` to its size, then
 * until the guest's kernel shows it, the guest's report read through the agent (readGuestLayout),
 * planned by planGuestGrowth and run there by runGuestGrowth (guest-exec of the guest's own tools). Prints
 * the figures as JSON and writes its table into docs/performance.md.
 * GUEST_FS_RUNS sets the runs per layout (default 20).
 */
import { readFile } from 'node:fs/promises';
import { defaultCacheDir } from '../src/cli/cache-dir.js';
import { startLabVm, startLibvirt } from '../src/demo/index.js';
import {
  buildLabLayout,
  type LabFilesystem,
  type LabLayoutKind,
} from '../test/support/guest-grow/lab-layouts.js';
import { growLabLayout } from '../test/support/guest-grow/grow-lab-layout.js';
import { labGuestOutput } from '../test/support/guest-grow/lab-guest-commands.js';
import { measuredOn, writeResults } from './support/results-section.js';

const MI = 1024n ** 2n;
const GI = 1024n ** 3n;
const RUNS = Number(process.env['GUEST_FS_RUNS'] ?? 20);
const STEP = 256n * MI;

const LAYOUTS: ReadonlyArray<{ name: string; kind: LabLayoutKind; filesystem: LabFilesystem }> = [
  { name: 'unpartitioned ext4', kind: 'unpartitioned', filesystem: 'ext4' },
  { name: 'unpartitioned xfs', kind: 'unpartitioned', filesystem: 'xfs' },
  { name: 'unpartitioned btrfs', kind: 'unpartitioned', filesystem: 'btrfs' },
  { name: 'GPT, ext4 (growpart)', kind: 'gpt', filesystem: 'ext4' },
  { name: 'MBR, xfs (growpart)', kind: 'mbr', filesystem: 'xfs' },
  { name: 'LVM on GPT, ext4', kind: 'lvm', filesystem: 'ext4' },
];

const log = (line: string): void => void process.stderr.write(`bench:guest-fs: ${line}\n`);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function stats(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1)! };
}

type Stats = ReturnType<typeof stats>;

interface LayoutResult {
  name: string;
  steps: string;
  seen: Stats;
  grown: Stats;
}

async function main(): Promise<void> {
  const libvirt = await startLibvirt();
  const disks = LAYOUTS.map((_, index) => ({
    target: `sd${String.fromCharCode(97 + index)}`,
    bytes: GI + BigInt(index) * 8n * MI,
    bus: 'scsi' as const,
    hotplug: true,
  }));
  const vm = await startLabVm({
    cacheDir: defaultCacheDir(),
    namespace: 'guest-fs-bench',
    name: 'layouts',
    disks,
  });
  try {
    log(`domain ${vm.domain} booted in ${vm.bootMs} ms`);
    const results: LayoutResult[] = [];
    for (const [index, layout] of LAYOUTS.entries()) {
      const disk = await guestDiskOfSize(vm, disks[index]!.bytes);
      await buildLabLayout(vm, layout.kind, layout.filesystem, disk);
      const seen: number[] = [];
      const grown: number[] = [];
      let steps = '';
      let bytes = disks[index]!.bytes;
      for (let run = 0; run < RUNS; run++) {
        bytes += STEP;
        const growth = await growLabLayout(vm, disks[index]!.target, disk, bytes);
        if (growth.plan.kind !== 'grow' || growth.run.outcome !== 'grown')
          throw new Error(`${layout.name}: ${JSON.stringify(growth.run)}`);
        steps = growth.plan.steps.map((step) => step.argv[0]).join(', ');
        seen.push(growth.guestSeesMs);
        grown.push(growth.grownMs);
        log(`${layout.name}: ${Math.round(growth.grownMs)} ms (${steps})`);
      }
      results.push({ name: layout.name, steps, seen: stats(seen), grown: stats(grown) });
    }
    const loadAverage = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
    process.stdout.write(
      `${JSON.stringify({ runs: RUNS, bootMs: vm.bootMs, results }, null, 2)}\n`,
    );
    await writeResults('guest-fs', await resultsTable(results, vm.bootMs, loadAverage));
  } finally {
    await vm.destroy();
    await libvirt.stop();
  }
}

/** The guest's disk of `bytes` (each lab disk has its own size), once the guest lists it. */
async function guestDiskOfSize(vm: Awaited<ReturnType<typeof startLabVm>>, bytes: bigint) {
  for (let tries = 0; tries < 300; tries++) {
    const listing = await labGuestOutput(vm, {
      argv: ['sh', '-c', 'for d in /sys/block/sd*; do echo "${d##*/} $(cat "$d/size")"; done'],
    });
    for (const line of listing.trim().split('\n')) {
      const [name, sectors] = line.split(' ');
      if (sectors && BigInt(sectors) * 512n === bytes) return `/dev/${name}`;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the guest lists no disk of ${bytes} bytes`);
}

async function resultsTable(
  results: readonly LayoutResult[],
  bootMs: number,
  loadAverage: string,
): Promise<string> {
  const ms = (s: Stats): string =>
    `${Math.round(s.p50)} / ${Math.round(s.p99)} / ${Math.round(s.max)} ms`;
  return [
    `${await measuredOn()} Load average at the end: ${loadAverage}. The domain booted in ${(bootMs / 1000).toFixed(1)} s. ${RUNS} growths of 256 MiB per layout.`,
    '',
    '| layout | steps | blockresize until the guest sees it (p50 / p99 / max) | blockresize until the filesystem is grown (p50 / p99 / max) |',
    '| --- | --- | --- | --- |',
    ...results.map((r) => `| ${r.name} | ${r.steps} | ${ms(r.seen)} | ${ms(r.grown)} |`),
  ].join('\n');
}

await main();
