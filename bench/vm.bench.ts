/**
 * VM lab benchmark (`npm run bench:vm`): the time from a PVC edit to Completed on a real VM, and
 * the tracker's own share of it. A libvirt domain named as KubeVirt names it runs the lab guest
 * (QEMU under TCG, qemu-guest-agent); a real kube-apiserver + etcd mirror it (VM, VMI, launcher
 * pod, PVC, PV); voe's webhook is registered; the tracker runs in this process with the local
 * guest probe (`voe watch --guest-probe local`). Thirty expansions of the same disk (1Gi -> 2Gi ->
 * ... -> 31Gi), one after the other: the user's edit through the API server, then the test
 * actors (external-resizer, which also grows the lab volume, kubelet, virt-controller, the lab's
 * virt-handler: `virsh blockresize` to the device's size), each write followed by the wait for the phase it leads to. The guest's
 * time (from block_resize until its own /sys/block/vda/size shows the size, read through the
 * agent) is part of virt-handler's write here, so that what follows each write is the tracker's
 * alone. Then 50 probe reads of the disk, to state the probe's cost per VM.
 * Goal: the tracker's share p99 under 1 s. Prints the figures and writes docs/performance.md.
 */
import { readFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { defaultCacheDir } from '../src/cli/cache-dir.js';
import { installCrds, startControlPlane } from '../src/controlplane/index.js';
import { createLogger } from '../src/log/index.js';
import { parseQuantity } from '../src/kube/index.js';
import type { ExpansionResult } from '../src/demo/index.js';
import { playsFor, type Play } from '../src/demo/expansion-plays.js';
import { followPlays } from '../src/demo/follow-expansions.js';
import { StagedCluster } from '../src/demo/staged-cluster.js';
import { stageLabMirror } from '../src/demo/vm-lab-mirror.js';
import { createGuestProbe, startTracker, type GuestProbe } from '../src/vmwatcher/index.js';
import { ExpansionActors, startLabVm, startLibvirt, type LabVm } from '../src/demo/index.js';
import type { VirtualMachineInstance } from '../src/model/index.js';
import { waitUntil } from '../src/wait/index.js';
import { admissionWiring, serveWebhook } from '../src/webhook/index.js';
import { measuredOn, writeResults } from './support/results-section.js';

const NS = 'vm-bench';
const VM = 'bench-vm';
const CLAIM = 'bench-vm-disk-0-lab01';
const EXPANSIONS = 30;
const PROBE_READS = 50;
const GI = 1024n ** 3n;

const log = (line: string): void => void process.stderr.write(`bench:vm: ${line}\n`);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function stats(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1)! };
}

/** The plays of --vm, virt-handler's write waiting until the guest itself shows the size (the guest's time, kept apart). */
function playsWithGuestTime(vm: LabVm, guestMs: number[]): readonly Play[] {
  return playsFor({ running: true, guest: true }).map((play) =>
    play.actor !== 'virt-handler'
      ? play
      : {
          ...play,
          act: async (actors, target) => {
            await play.act!(actors, target);
            const started = performance.now();
            const sectors = String(parseQuantity(target.size) / 512n);
            const outcome = await waitUntil(
              async () =>
                (await vm.guestExec('/bin/cat', ['/sys/block/vda/size'])).stdout.trim() === sectors,
              { timeoutMs: 30_000, intervalMs: 20 },
            );
            if (outcome !== 'ok') throw new Error(`the guest did not show ${target.size}`);
            guestMs.push(performance.now() - started);
          },
        },
  );
}

interface Sample {
  totalMs: number;
  trackerMs: number;
  actorsMs: number;
}

/** One expansion: the edit through the webhook, then the plays; the tracker's share is what follows each write. */
async function expandOnce(
  cluster: StagedCluster,
  actors: ExpansionActors,
  vm: LabVm,
  from: string,
  to: string,
  guestMs: number[],
): Promise<Sample> {
  const started = performance.now();
  await cluster.resizeClaim(NS, CLAIM, to);
  const editedAt = performance.now();
  const result: ExpansionResult = await followPlays(
    { kubeConfig: cluster.kubeConfig, resizes: [], timeoutMs: 60_000 },
    actors,
    { namespace: NS, claim: CLAIM, from, to },
    playsWithGuestTime(vm, guestMs),
    VM,
    { lab: { vm, target: 'vda' }, pvName: `pvc-${NS}-${CLAIM}`, editedAt },
  );
  if (!result.ok) throw new Error(`${from} -> ${to}: ${result.mismatch ?? 'not as expected'}`);
  const admitted = result.timeline[0]!.atMs ?? 0;
  const trackerMs =
    admitted + result.timeline.reduce((sum, entry) => sum + (entry.afterMs ?? 0), 0);
  const actorsMs =
    editedAt - started + result.timeline.reduce((sum, entry) => sum + (entry.actMs ?? 0), 0);
  return { totalMs: performance.now() - started, trackerMs, actorsMs };
}

interface BenchLab {
  vm: LabVm;
  vmi: VirtualMachineInstance;
  cluster: StagedCluster;
  probe: GuestProbe;
}

/** libvirtd, the domain and its mirror, the webhook, the tracker with the local probe; each stop pushed on `undo`. */
async function startBenchLab(
  cacheDir: string,
  kubeConfig: KubeConfig,
  undo: Array<() => Promise<void>>,
): Promise<BenchLab> {
  const libvirt = await startLibvirt();
  undo.push(() => libvirt.stop());
  const vm = await startLabVm({
    cacheDir,
    namespace: NS,
    name: VM,
    disks: [{ target: 'vda', bus: 'virtio', serial: 'bench-vm-disk-0', bytes: GI }],
  });
  undo.push(() => vm.destroy());
  log(`domain ${vm.domain} booted in ${vm.bootMs} ms`);
  const cluster = new StagedCluster(kubeConfig);
  const { vmi } = await stageLabMirror(cluster, {
    namespace: NS,
    name: VM,
    disks: [
      {
        claim: CLAIM,
        volumeName: 'disk-0',
        target: 'vda',
        bus: 'virtio',
        serial: 'bench-vm-disk-0',
        size: '1Gi',
      },
    ],
    agentConnected: true,
  });
  const logger = createLogger({ level: 'warn' });
  const wiring = admissionWiring();
  const webhook = await serveWebhook({
    kubeConfig,
    logger,
    host: '127.0.0.1',
    port: 0,
    dev: true,
    configurationName: 'voe-bench-vm',
    startCaches: (config, cacheLogger) => wiring.startCaches(config, cacheLogger),
    createValidators: wiring.createValidators,
  });
  undo.push(() => webhook.stop());
  const probe = createGuestProbe('local', kubeConfig)!;
  const tracker = await startTracker({
    kubeConfig,
    logger,
    kubeVirtNamespace: 'harvester-system',
    kubeVirtName: 'kubevirt',
    leaseNamespace: 'default',
    leaseName: 'voe-bench-vm',
    host: '127.0.0.1',
    port: 0,
    probe,
  });
  undo.push(() => tracker.stop());
  await waitUntil(() => tracker.isLeader(), { timeoutMs: 30_000, intervalMs: 25 });
  return { vm, vmi, cluster, probe };
}

/** PROBE_READS reads of the disk, one after the other: what one probe costs. */
async function measureProbe(lab: BenchLab): Promise<number[]> {
  const probeMs: number[] = [];
  for (let i = 0; i < PROBE_READS; i++) {
    const started = performance.now();
    const reading = await lab.probe.read({
      vmi: lab.vmi,
      volumeName: 'disk-0',
      target: 'vda',
      claimName: CLAIM,
    });
    if (reading.failure) throw new Error(`probe: ${reading.failure}`);
    probeMs.push(performance.now() - started);
  }
  return probeMs;
}

type Stats = ReturnType<typeof stats>;

async function resultsTable(result: {
  total: Stats;
  actors: Stats;
  guest: Stats;
  tracker: Stats;
  probe: Stats;
  bootMs: number;
  loadAverage: string;
}): Promise<string> {
  const ms = (s: Stats): string =>
    `${Math.round(s.p50)} / ${Math.round(s.p99)} / ${Math.round(s.max)} ms`;
  return [
    `${await measuredOn()} Load average at the end: ${result.loadAverage}. The domain booted in ${(result.bootMs / 1000).toFixed(1)} s.`,
    '',
    '| measure (p50 / p99 / max) | result | goal |',
    '| --- | --- | --- |',
    `| PVC edit to Completed (${EXPANSIONS} expansions) | ${ms(result.total)} | |`,
    `| the actors' writes (edit included) | ${ms(result.actors)} | |`,
    `| the guest: block_resize until its /sys/block/vda/size shows the size | ${ms(result.guest)} | |`,
    `| the tracker's share | ${ms(result.tracker)} | p99 < 1 s |`,
    `| one probe read of a disk (${PROBE_READS} reads; per VM, one at a time) | ${ms(result.probe)} | |`,
  ].join('\n');
}

async function main(): Promise<void> {
  log(
    `machine: ${cpus().length} vCPU, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  const cacheDir = defaultCacheDir();
  const cp = await startControlPlane({ cacheDir, env: process.env, onProgress: log });
  const undo: Array<() => Promise<void>> = [() => cp.stop()];
  try {
    await installCrds(cp.kubeConfig);
    const lab = await startBenchLab(cacheDir, cp.kubeConfig, undo);
    const actors = new ExpansionActors(cp.kubeConfig);
    const samples: Sample[] = [];
    const guestMs: number[] = [];
    for (let i = 1; i <= EXPANSIONS; i++) {
      const sample = await expandOnce(lab.cluster, actors, lab.vm, `${i}Gi`, `${i + 1}Gi`, guestMs);
      log(
        `${i}Gi -> ${i + 1}Gi: ${Math.round(sample.totalMs)} ms, tracker ${Math.round(sample.trackerMs)} ms`,
      );
      samples.push(sample);
    }
    const result = {
      expansions: EXPANSIONS,
      total: stats(samples.map((s) => s.totalMs)),
      actors: stats(samples.map((s) => s.actorsMs)),
      guest: stats(guestMs),
      tracker: stats(samples.map((s) => s.trackerMs)),
      probe: stats(await measureProbe(lab)),
      bootMs: lab.vm.bootMs,
      loadAverage: (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' '),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    await writeResults('vm', await resultsTable(result));
  } finally {
    for (const step of undo.reverse())
      await step().catch((error: unknown) => log(`cleanup: ${String(error)}`));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
