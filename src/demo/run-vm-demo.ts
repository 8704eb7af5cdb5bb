/**
 * `voe demo --vm`: the tracker's whole path on a real VM (docs/demo.md). A libvirt domain named as
 * KubeVirt names it boots the lab guest (QEMU under TCG, qemu-guest-agent); the control plane
 * mirrors it (VM, VMI, launcher pod, PVC, PV); the voe webhook is registered; the user's PVC edit
 * goes through the API server; test actors play external-resizer, kubelet and virt-controller, the
 * lab's virt-handler runs `virsh blockresize` to the size KubeVirt computes; the tracker, with the
 * local guest probe and the guest filesystem grower (the VM opts in), records each phase up to
 * GuestFilesystemGrowing, grows the ext4 filesystem mounted on the disk in the guest, and ends
 * Completed (GuestFilesystemGrown) with the hypervisor's, the guest's and the filesystem's bytes.
 * The timeline says when each phase was seen after the edit; the guest's df before the edit and
 * after Completed shows the growth as the guest's user sees it.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../log/index.js';
import { GROW_GUEST_FILESYSTEM_ANNOTATION } from '../model/index.js';
import {
  agentFilesystemGrower,
  createGuestProbe,
  virshAgentOf,
  virshTransportOf,
  type RunningTracker,
} from '../vmwatcher/index.js';
import { ExpansionActors } from './actors/expansion-actors.js';
import { guestDf, makeLabFilesystem } from './lab/lab-filesystem.js';
import { startLabVm, type LabVm } from './lab/lab-vm.js';
import type { GuestDf } from './lab/parse-guest-df.js';
import { startLibvirt, type LibvirtDaemons } from './lab/libvirt-daemons.js';
import { admissionWiring, serveWebhook, type ServingWebhook } from '../webhook/index.js';
import { DemoError } from './demo-error.js';
import { playsFor } from './expansion-plays.js';
import { followPlays, type ExpansionResult } from './follow-expansions.js';
import { StagedCluster } from './staged-cluster.js';
import { startDemoTracker } from './start-demo-tracker.js';
import { stageLabMirror } from './vm-lab-mirror.js';

export const VM_DEMO = {
  namespace: 'vm-lab',
  vm: 'demo-vm',
  claim: 'demo-vm-disk-0-lab01',
  volumeName: 'disk-0',
  target: 'vda',
  /** The guest's device of the disk, the filesystem made on it and where it is mounted. */
  device: '/dev/vda',
  filesystem: 'ext4',
  mountPoint: '/mnt/data',
  serial: 'demo-vm-disk-0',
  from: '1Gi',
  to: '2Gi',
  configurationName: 'voe-demo-vm',
} as const;

export interface RunVmDemoOptions {
  kubeConfig: KubeConfig;
  logger: Logger;
  /** The voe cache: the guest's packages and the lab's initramfs. */
  cacheDir: string;
  onProgress?: (line: string) => void;
  /** How long the tracker may take to show a phase; default 60 s (TCG is slow on a busy machine). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface VmDemoReport {
  /** The libvirt domain (`<namespace>_<vmi>`). */
  domain: string;
  /** How long the domain took to boot until its agent answered, ms. */
  bootMs: number;
  webhookUrl: string;
  trackerUrl: string;
  expansion: ExpansionResult;
  /** The guest's `df -P -B1` of the mount point before the PVC edit and after Completed. */
  df: { before: GuestDf; after?: GuestDf };
  /** Completed (GuestFilesystemGrown), and df after shows a larger filesystem than before. */
  ok: boolean;
}

/** Boots the domain and stages its mirror; undoes the boot if staging fails. */
async function bootAndMirror(options: RunVmDemoOptions, cluster: StagedCluster): Promise<LabVm> {
  const vm = await startLabVm({
    cacheDir: options.cacheDir,
    namespace: VM_DEMO.namespace,
    name: VM_DEMO.vm,
    disks: [{ target: VM_DEMO.target, bus: 'virtio', serial: VM_DEMO.serial, bytes: 1024n ** 3n }],
  });
  try {
    await stageLabMirror(cluster, {
      namespace: VM_DEMO.namespace,
      name: VM_DEMO.vm,
      disks: [
        {
          claim: VM_DEMO.claim,
          volumeName: VM_DEMO.volumeName,
          target: VM_DEMO.target,
          bus: 'virtio',
          serial: VM_DEMO.serial,
          size: VM_DEMO.from,
        },
      ],
      agentConnected: true,
      vmAnnotations: { [GROW_GUEST_FILESYSTEM_ANNOTATION]: 'true' },
    });
  } catch (error) {
    await vm.destroy();
    throw new DemoError(
      'DEMO_API_FAILED',
      `staging the lab VM's objects failed: ${(error as Error).message.split('\n')[0]}`,
      { cause: error },
    );
  }
  return vm;
}

/** The webhook as `voe demo` runs it (dev mode, registered), for the PVC edit to go through. */
async function serveDemoWebhook(options: RunVmDemoOptions): Promise<ServingWebhook> {
  const wiring = admissionWiring();
  return serveWebhook({
    kubeConfig: options.kubeConfig,
    logger: options.logger,
    host: '127.0.0.1',
    port: 0,
    dev: true,
    configurationName: VM_DEMO.configurationName,
    startCaches: (config, log) => wiring.startCaches(config, log),
    createValidators: wiring.createValidators,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** What runVmDemo started, in order; stopped in reverse. */
interface Started {
  vm: LabVm;
  webhook: ServingWebhook;
  tracker: RunningTracker;
  /** The guest's df of the mount point once the filesystem was made. */
  before: GuestDf;
}

/** libvirtd, the domain and its mirror, the webhook, the tracker with the local probe; each stop pushed on `undo`. */
async function startAll(
  options: RunVmDemoOptions,
  cluster: StagedCluster,
  undo: Array<() => Promise<void>>,
): Promise<Started> {
  const progress = options.onProgress ?? (() => undefined);
  progress('voe demo --vm: starting libvirtd and virtlogd (QEMU under TCG)');
  const libvirt: LibvirtDaemons = await startLibvirt();
  undo.push(() => libvirt.stop());
  progress(
    `voe demo --vm: booting the domain ${VM_DEMO.namespace}_${VM_DEMO.vm} (the lab guest: Debian's kernel, busybox, qemu-guest-agent; a ${VM_DEMO.from} virtio disk, serial ${VM_DEMO.serial})`,
  );
  const vm = await bootAndMirror(options, cluster);
  undo.push(() => vm.destroy());
  progress(
    `voe demo --vm: the guest's agent answers after ${(vm.bootMs / 1000).toFixed(1)} s; in the guest, through guest-exec: mkfs.${VM_DEMO.filesystem} ${VM_DEMO.device}, mount it on ${VM_DEMO.mountPoint}`,
  );
  const before = await makeFilesystem(vm);
  progress(
    `voe demo --vm: the guest's df of ${VM_DEMO.mountPoint} before the resize: ${dfLine(before)}; registering the webhook and starting the tracker with --guest-probe local --guest-filesystem-growth (the VM opts in: ${GROW_GUEST_FILESYSTEM_ANNOTATION}: "true")`,
  );
  const webhook = await serveDemoWebhook(options);
  undo.push(() => webhook.stop());
  const tracker = await startDemoTracker({
    kubeConfig: options.kubeConfig,
    logger: options.logger,
    timeoutMs: 30_000,
    signal: options.signal,
    probe: createGuestProbe('local', options.kubeConfig),
    probeIntervalMs: 2_000,
    grower: agentFilesystemGrower(virshAgentOf(virshTransportOf('local', options.kubeConfig))),
    leaseName: 'voe-demo-vm-tracker',
  });
  undo.push(() => tracker.stop());
  return { vm, webhook, tracker, before };
}

/** df's figures as a line: size, used, available, in bytes. */
function dfLine(df: GuestDf): string {
  return `${df.filesystem} ${df.sizeBytes} bytes, ${df.usedBytes} used, ${df.availableBytes} available`;
}

/** The filesystem on the guest's disk, made and mounted through the agent; its df. */
async function makeFilesystem(vm: LabVm): Promise<GuestDf> {
  await makeLabFilesystem(vm, {
    device: VM_DEMO.device,
    type: VM_DEMO.filesystem,
    mountPoint: VM_DEMO.mountPoint,
  });
  return guestDf(vm, VM_DEMO.mountPoint);
}

/** The user's edit through the API server (and the webhook), then the peers' plays up to Completed. */
async function editAndFollow(
  options: RunVmDemoOptions,
  cluster: StagedCluster,
  vm: LabVm,
): Promise<ExpansionResult> {
  options.onProgress?.(
    `voe demo --vm: the user raises ${VM_DEMO.namespace}/${VM_DEMO.claim} from ${VM_DEMO.from} to ${VM_DEMO.to} through the API server\n`,
  );
  const editedAt = performance.now();
  try {
    await cluster.resizeClaim(VM_DEMO.namespace, VM_DEMO.claim, VM_DEMO.to);
  } catch (error) {
    throw new DemoError(
      'DEMO_API_FAILED',
      `the PVC edit was refused: ${(error as Error).message.split('\n')[0]}`,
      { cause: error },
    );
  }
  return followPlays(
    {
      kubeConfig: options.kubeConfig,
      resizes: [],
      timeoutMs: options.timeoutMs ?? 60_000,
      ...(options.signal ? { signal: options.signal } : {}),
    },
    new ExpansionActors(options.kubeConfig),
    { namespace: VM_DEMO.namespace, claim: VM_DEMO.claim, from: VM_DEMO.from, to: VM_DEMO.to },
    playsFor({ running: true, guest: true, growth: true }),
    VM_DEMO.vm,
    {
      lab: { vm, target: VM_DEMO.target },
      pvName: `pvc-${VM_DEMO.namespace}-${VM_DEMO.claim}`,
      editedAt,
    },
  );
}

/**
 * Runs the VM demo on a control plane that serves the KubeVirt, Harvester and voe CRDs, as root
 * with the VM lab installed (scripts/install-test-deps.sh vm). Everything it starts (the domain,
 * libvirtd and virtlogd unless they already ran, the webhook and its registration, the tracker)
 * is stopped again, also on failure.
 */
export async function runVmDemo(options: RunVmDemoOptions): Promise<VmDemoReport> {
  const cluster = new StagedCluster(options.kubeConfig);
  const undo: Array<() => Promise<void>> = [];
  try {
    const { vm, webhook, tracker, before } = await startAll(options, cluster, undo);
    const expansion = await editAndFollow(options, cluster, vm);
    const after = expansion.ok ? await guestDf(vm, VM_DEMO.mountPoint) : undefined;
    if (after)
      options.onProgress?.(
        `voe demo --vm: the guest's df of ${VM_DEMO.mountPoint} after Completed: ${dfLine(after)}`,
      );
    return {
      domain: vm.domain,
      bootMs: vm.bootMs,
      webhookUrl: webhook.url,
      trackerUrl: tracker.url,
      expansion,
      df: after ? { before, after } : { before },
      ok: after !== undefined && BigInt(after.sizeBytes) > BigInt(before.sizeBytes),
    };
  } finally {
    for (const step of undo.reverse()) await step().catch(() => undefined);
  }
}
