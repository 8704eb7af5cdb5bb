/**
 * One growth of a lab guest's disk end to end: the storage grows the volume, the lab's
 * virt-handler step runs `virsh blockresize` to the device's size (what KubeVirt's
 * LibvirtDomainManager does for a Block volume), the guest's kernel shows the new size, then the
 * guest's report is read and planned by planGuestGrowth and the plan's steps run in the guest.
 */
import type { LabVm } from '../../../src/demo/index.js';
import { planGuestGrowth, type GuestGrowthPlan } from '../../../src/fsresize/index.js';
import { waitUntil } from '../../../src/wait/index.js';
import { labGuestOutput } from './lab-guest-commands.js';
import { readLabGuestLayout, runLabSteps, type LabStepRecord } from './lab-guest-layout.js';

export interface LabGrowth {
  /** The bytes `virsh blockresize` gave the disk. */
  resized: bigint;
  /** The plan made once the guest saw the new size. */
  plan: GuestGrowthPlan;
  /** Each step run (none for a refusal). */
  records: LabStepRecord[];
  /** From the hypervisor's growth until the guest's kernel shows it, then until the steps ended (ms). */
  guestSeesMs: number;
  grownMs: number;
}

/** The guest's size of `disk` (/dev/sdX) in bytes, from its /sys/block/<name>/size. */
export async function guestDiskBytes(vm: LabVm, disk: string): Promise<bigint> {
  const name = disk.slice('/dev/'.length);
  const sectors = await labGuestOutput(vm, { argv: ['cat', `/sys/block/${name}/size`] });
  return BigInt(sectors.trim()) * 512n;
}

/** Grows the lab disk `target` (the guest's `disk`) to `bytes` and grows what is on it in the guest. */
export async function growLabLayout(
  vm: LabVm,
  target: string,
  disk: string,
  bytes: bigint,
): Promise<LabGrowth> {
  const volume = vm.volume(target);
  await volume.growDevice(bytes);
  const resized = await volume.deviceBytes();
  await vm.blockResize(target, resized);
  const started = performance.now();
  const seen = await waitUntil(async () => (await guestDiskBytes(vm, disk)) === resized, {
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  if (seen !== 'ok') throw new Error(`the guest did not show ${disk} at ${resized} bytes`);
  const guestSeesMs = performance.now() - started;
  const plan = planGuestGrowth(await readLabGuestLayout(vm, disk), { disk });
  const records = plan.kind === 'grow' ? await runLabSteps(vm, plan.steps) : [];
  return { resized, plan, records, guestSeesMs, grownMs: performance.now() - started };
}

/** The plan for `disk` as the guest is now (empty once everything fills the disk). */
export async function planLabDisk(vm: LabVm, disk: string): Promise<GuestGrowthPlan> {
  return planGuestGrowth(await readLabGuestLayout(vm, disk), { disk });
}
