/**
 * One growth of a lab guest's disk end to end: the storage grows the volume, the lab's
 * virt-handler step runs `virsh blockresize` to the device's size (what KubeVirt's
 * LibvirtDomainManager does for a Block volume), the guest's kernel shows the new size, then the
 * guest-agent runner reads the guest's report (readGuestLayout), planGuestGrowth plans it, and
 * runGuestGrowth runs the plan's steps there, through this machine's virsh (the local transport
 * `voe watch --guest-probe local` uses).
 */
import type { LabVm } from '../../../src/demo/index.js';
import { planGuestGrowth, type GuestGrowthPlan } from '../../../src/fsresize/index.js';
import {
  linuxReadings,
  readGuestLayout,
  runGuestGrowth,
  type GuestAgent,
  type GuestGrowthRun,
} from '../../../src/guest-grow/index.js';
import { virshGuestAgent } from '../../../src/vmwatcher/index.js';
import { localVirsh } from '../../../src/vmwatcher/probe/local-virsh.js';
import { waitUntil } from '../../../src/wait/index.js';
import { labGuestOutput } from './lab-guest-commands.js';

export interface LabGrowth {
  /** The bytes `virsh blockresize` gave the disk. */
  resized: bigint;
  /** The plan made once the guest saw the new size. */
  plan: GuestGrowthPlan;
  /** The runner's run of that plan: its outcome and each step's record. */
  run: GuestGrowthRun;
  /** From the hypervisor's growth until the guest's kernel shows it, then until the run ended (ms). */
  guestSeesMs: number;
  grownMs: number;
}

/** The lab domain's guest agent, as the runner reaches it: `virsh qemu-agent-command` on this machine. */
export function labGuestAgent(vm: LabVm): GuestAgent {
  return virshGuestAgent(localVirsh(), { namespace: '', launcherPod: undefined }, vm.domain);
}

/** The guest's size of `disk` (/dev/sdX) in bytes, from its /sys/block/<name>/size. */
export async function guestDiskBytes(vm: LabVm, disk: string): Promise<bigint> {
  const name = disk.slice('/dev/'.length);
  const sectors = await labGuestOutput(vm, { argv: ['cat', `/sys/block/${name}/size`] });
  return BigInt(sectors.trim()) * 512n;
}

/** The plan for `disk` as the guest is now, read by the runner (empty once everything fills the disk). */
export async function planLabDisk(vm: LabVm, disk: string): Promise<GuestGrowthPlan> {
  return planGuestGrowth(await readGuestLayout(labGuestAgent(vm), { disk }), { disk });
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
  const agent = labGuestAgent(vm);
  const plan = await planLabDisk(vm, disk);
  const run = await runGuestGrowth(agent, plan, {
    vm: vm.domain,
    read: linuxReadings(agent, { disk }),
  });
  return { resized, plan, run, guestSeesMs, grownMs: performance.now() - started };
}
