/**
 * Tracker benchmark (`npm run bench:tracker`): a real kube-apiserver + etcd holding 10,000 PVCs
 * (bound, with their 10,000 PVs), 5,000 VMs and their VMIs, and 10,000 pods (a virt-launcher and a
 * hotplug pod per VM), and `voe watch` running against it as its own process. Measures:
 *   1. the initial sync: from the start of `voe watch` to /readyz 200 (every cache listed);
 *   2. the tracker's steady RSS (VmRSS of its process, after the sync and again after the load);
 *   3. the latency from an actor's write to the phase update, over 100 concurrent expansions, as
 *      the peers write (external-resizer's 10 workers, then kubelet, then virt-controller's 10
 *      VMI threads, each PVC going on by itself), and again with each phase's 100 writes sent at
 *      once (NodeResizePending, NodeResizing, VMUpdating, HypervisorResizing); a watch on
 *      VolumeExpansions in this process notes when each new phase arrives; the latency runs from
 *      the write's answer to that arrival.
 * Goals: RSS under 200 MiB, p99 under 100 ms. Prints the figures (docs/performance.md "tracker").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { defaultCacheDir } from '../src/cli/cache-dir.js';
import { installCrds, startControlPlane } from '../src/controlplane/index.js';
import { Informer, requestJson, resourcePath } from '../src/kube/index.js';
import { VOLUME_EXPANSIONS, type VolumeExpansion } from '../src/vmwatcher/index.js';
import type { PersistentVolumeClaim, VirtualMachineInstance } from '../src/model/index.js';
import { ExpansionActors } from '../src/demo/index.js';
import { percent, readCpuTimes, stealShare } from './support/cpu-steal.js';
import { chartSettings } from './support/chart-settings.js';
import { histogramTotals, observedBetween } from './support/histogram-totals.js';
import { PhaseArrivals } from './support/phase-arrivals.js';
import { pool, workers } from './support/pool.js';
import { childrenNamed, processCpuSeconds } from './support/process-cpu.js';
import { processRss } from './support/process-rss.js';
import { measuredOn, writeResults } from './support/results-section.js';
import { claimName, ns, stageCluster, vmName, type ClusterShape } from './support/stage-cluster.js';

const VMS = 5_000;
const EXPANSIONS = 100;
const VOE_MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** The cluster this bench stages: 10,000 PVCs, two per VM, the second hotplugged. */
export const TRACKER_CLUSTER: ClusterShape = { vms: VMS, disks: 2 };

async function rssMiB(pid: number): Promise<number> {
  return (await processRss(pid)).rssMiB;
}

async function until<T>(
  read: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

const log = (line: string): void => void process.stderr.write(`bench:tracker: ${line}\n`);

/** Every VM's first PVC is raised 10Gi → 20Gi; its VolumeExpansion is `<claim>-20gi`. */
const NEW_SIZE = '20Gi';
/** The spacing of the expansions' VMs: run n expands VMs n, 50 + n, 100 + n ... */
const STEP = VMS / EXPANSIONS;
/** The phases whose arrival is measured, in the order the peers' writes bring them. */
const PHASES = ['NodeResizePending', 'NodeResizing', 'VMUpdating', 'HypervisorResizing'] as const;
type MeasuredPhase = (typeof PHASES)[number];

/**
 * The peers' concurrency as shipped. external-resizer: 10 workers (cmd/csi-resizer/main.go,
 * `--workers`; Longhorn's resizer Deployment keeps the default), each syncing one PVC at a time:
 * its status, the PV, the PVC's pending node expansion. virt-controller's VMI controller: 10
 * threads (pkg/virt-controller/watch/application.go, defaultVMIControllerThreads). kubelet's
 * operation executor expands each volume in its own goroutine: no limit but its client's.
 * The clients' rate limits (csi-resizer 5 QPS unless raised, kubelet 50, virt-controller 200)
 * are not applied: they would only spread the writes further.
 */
const RESIZER_WORKERS = 10;
const VMI_CONTROLLER_THREADS = 10;
/**
 * How long Longhorn's ControllerExpandVolume holds the resizer worker that called it: after its
 * expand action it waits in waitForVolumeState, whose ticker (tickAttachDetach, 2 s) fires before
 * the first look at the volume (longhorn-manager csi/controller_server.go). An expansion that is
 * done by then returns at the first tick.
 */
const LONGHORN_EXPAND_TICK_MS = 2_000;

interface Target {
  namespace: string;
  vm: string;
  claim: string;
}

function targetsOf(run: number): Target[] {
  return Array.from({ length: EXPANSIONS }, (_, k) => k * STEP + (run % STEP)).map((i) => ({
    namespace: ns(i),
    vm: vmName(i),
    claim: claimName(i, 0),
  }));
}

const expansionKey = (t: Target, phase: string): string =>
  PhaseArrivals.key(t.namespace, `${t.claim}-20gi`, phase);
const pvNameOf = (t: Target): string => `pvc-${t.namespace}-${t.claim}`;

/** The user raises the 100 PVCs at once; resolves once the tracker follows each of them. */
async function startExpansions(
  kubeConfig: KubeConfig,
  targets: Target[],
  arrivals: PhaseArrivals,
): Promise<void> {
  await Promise.all(
    targets.map((t) =>
      requestJson(kubeConfig, {
        method: 'PATCH',
        path: resourcePath({
          group: '',
          version: 'v1',
          plural: 'persistentvolumeclaims',
          namespace: t.namespace,
          name: t.claim,
        }),
        contentType: 'application/merge-patch+json',
        body: { spec: { resources: { requests: { storage: NEW_SIZE } } } },
      }),
    ),
  );
  await Promise.all(targets.map((t) => arrivals.arrived(expansionKey(t, 'ControllerResizing'))));
}

/** The pids whose CPU the bench reads: `voe watch` and this bench's kube-apiserver and etcd. */
interface CpuPids {
  tracker: number;
  apiServer: number | undefined;
  etcd: number | undefined;
}

async function cpuPidsOf(tracker: number): Promise<CpuPids> {
  const [apiServer] = await childrenNamed(process.pid, 'kube-apiserver');
  const [etcd] = await childrenNamed(process.pid, 'etcd');
  return { tracker, apiServer, etcd };
}

/** CPU seconds used so far by the tracker, the API server, etcd and this bench. */
async function cpuOf(pids: CpuPids): Promise<Record<CpuPart, number>> {
  const usage = process.cpuUsage();
  const of = async (pid: number | undefined) =>
    pid === undefined ? Number.NaN : processCpuSeconds(pid);
  return {
    tracker: await of(pids.tracker),
    apiServer: await of(pids.apiServer),
    etcd: await of(pids.etcd),
    bench: (usage.user + usage.system) / 1e6,
  };
}
type CpuPart = 'tracker' | 'apiServer' | 'etcd' | 'bench';

/** The CPU seconds each part used between two readings, and the wall time. */
function cpuBetween(
  before: Record<CpuPart, number>,
  after: Record<CpuPart, number>,
  wallMs: number,
): Record<CpuPart | 'wall', number> {
  const used = (part: CpuPart) => Number((after[part] - before[part]).toFixed(2));
  return {
    tracker: used('tracker'),
    apiServer: used('apiServer'),
    etcd: used('etcd'),
    bench: used('bench'),
    wall: Number((wallMs / 1000).toFixed(2)),
  };
}

/** performance.now() when `write`'s answer came. */
async function answeredAt(write: () => Promise<void>): Promise<number> {
  await write();
  return performance.now();
}

/**
 * The 100 expansions as the peers carry them: external-resizer's workers take the PVCs in turn,
 * each held by Longhorn's ControllerExpandVolume between its first write and the PV's; each PVC
 * then goes on by itself: kubelet once its VolumeExpansion shows NodeResizePending (so
 * that each write brings its own phase), then virt-controller's threads. The latency of each
 * measured phase runs from the answer to the write that brings it to its arrival at the watch.
 */
async function peerPacedChains(
  actors: ExpansionActors,
  targets: Target[],
  arrivals: PhaseArrivals,
): Promise<Map<MeasuredPhase, number[]>> {
  const samples = new Map<MeasuredPhase, number[]>(PHASES.map((phase) => [phase, []]));
  const seen = async (t: Target, phase: MeasuredPhase, answered: number): Promise<void> => {
    const at = await arrivals.arrived(expansionKey(t, phase));
    samples.get(phase)!.push(Math.max(0, at - answered));
  };
  const vmiController = workers(VMI_CONTROLLER_THREADS);
  const chains: Array<Promise<void>> = [];
  const afterResizer = async (t: Target, answered: number): Promise<void> => {
    await seen(t, 'NodeResizePending', answered);
    await seen(
      t,
      'NodeResizing',
      await answeredAt(() => actors.kubeletStarts(t.namespace, t.claim)),
    );
    await seen(
      t,
      'VMUpdating',
      await answeredAt(() => actors.kubeletFinishes(t.namespace, t.claim)),
    );
    const synced = await vmiController(() =>
      answeredAt(() => actors.virtControllerSyncs(t.namespace, t.vm, t.claim)),
    );
    await seen(t, 'HypervisorResizing', synced);
  };
  await pool(targets, RESIZER_WORKERS, async (t) => {
    await actors.resizerStarts(t.namespace, t.claim, NEW_SIZE);
    // ControllerExpandVolume through Longhorn's CSI plugin, between the two writes.
    await new Promise((resolve) => setTimeout(resolve, LONGHORN_EXPAND_TICK_MS));
    await actors.resizerGrowsPv(pvNameOf(t), NEW_SIZE);
    const answered = await answeredAt(() => actors.resizerNeedsNode(t.namespace, t.claim));
    chains.push(afterResizer(t, answered));
  });
  await Promise.all(chains);
  return samples;
}

/**
 * A stress beyond the peers: for each phase, the 100 writes that bring it sent at once, then
 * the wait for the 100 arrivals. Returns each round's latencies and the tracker's own steps.
 */
async function burstRounds(
  actors: ExpansionActors,
  targets: Target[],
  arrivals: PhaseArrivals,
  url: string,
) {
  const writes: Record<MeasuredPhase, (t: Target) => Promise<void>> = {
    NodeResizePending: (t) => actors.resizerNeedsNode(t.namespace, t.claim),
    NodeResizing: (t) => actors.kubeletStarts(t.namespace, t.claim),
    VMUpdating: (t) => actors.kubeletFinishes(t.namespace, t.claim),
    HypervisorResizing: (t) => actors.virtControllerSyncs(t.namespace, t.vm, t.claim),
  };
  const rounds = [];
  for (const phase of PHASES) {
    const stepsBefore = await trackerSteps(url);
    const roundStart = performance.now();
    const answers = await Promise.all(targets.map((t) => answeredAt(() => writes[phase](t))));
    const seenAt = await Promise.all(targets.map((t) => arrivals.arrived(expansionKey(t, phase))));
    const stepsAfter = await trackerSteps(url);
    rounds.push({
      phase,
      // An update seen before the write's own answer arrived: the write was done.
      samples: seenAt.map((at, k) => Math.max(0, at - answers[k]!)),
      // How long the actors' 100 writes took to be answered: the API server's share.
      writesMs: Math.round(Math.max(...answers) - roundStart),
      // The tracker's own steps over the round, from its histograms: the waits of changed PVCs
      // for a worker (those its own writes queue again included), its status writes' round trips.
      queueWait: observed(observedBetween(stepsBefore.queueWait, stepsAfter.queueWait)),
      statusWrite: observed(observedBetween(stepsBefore.statusWrite, stepsAfter.statusWrite)),
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return rounds;
}

/** The tracker's histograms of its own steps (docs/metrics.md), as read from its /metrics. */
async function trackerSteps(url: string) {
  const text = await (await fetch(`${url}/metrics`)).text();
  return {
    queueWait: histogramTotals(text, 'voe_tracker_queue_wait_seconds'),
    statusWrite: histogramTotals(text, 'voe_tracker_status_write_duration_seconds'),
  };
}

const observed = (o: { count: number; meanMs: number }) => ({
  count: o.count,
  meanMs: Number(o.meanMs.toFixed(1)),
});

/**
 * Starts `voe watch` against a staged cluster, measures it, stops it. `run` picks other PVCs for
 * the 100 expansions (run 0: VMs 0, 50, 100...; run n: n, 50+n...), so that a staged cluster
 * serves several runs.
 */
export async function measure(
  kubeConfig: KubeConfig,
  kubeconfigPath: string,
  run = 0,
  extraArgs: string[] = [],
) {
  let tracker: ChildProcess | undefined;
  try {
    // 1. Initial sync of `voe watch` as its own process.
    const cpuBefore = await readCpuTimes();
    const spawned = Date.now();
    tracker = spawn(
      process.execPath,
      [
        VOE_MAIN,
        'watch',
        '--kubeconfig',
        kubeconfigPath,
        '--port',
        '0',
        '--bind-address',
        '127.0.0.1',
        '--lease-namespace',
        'default',
        '--lease-name',
        `bench-${run}`,
        '--log-level',
        'warn',
        ...extraArgs,
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        // As the chart runs it: its V8 heap flags.
        env: {
          ...process.env,
          NODE_OPTIONS: (await chartSettings('volume-online-expansion', 'tracker')).nodeOptions,
        },
      },
    );
    let stderr = '';
    tracker.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await until(
      () => /at (http:\/\/\S+) /.exec(stderr)?.[1],
      60_000,
      'voe watch to listen',
    );
    await until(
      async () => ((await fetch(`${url}/readyz`)).status === 200 ? true : undefined),
      600_000,
      'the caches to sync',
    );
    const syncMs = Date.now() - spawned;
    const syncSteal = stealShare(cpuBefore, await readCpuTimes());
    log(`initial sync ${syncMs} ms (steal ${percent(syncSteal)})`);
    await until(
      async () =>
        /voe_tracker_leader 1/.test(await (await fetch(`${url}/metrics`)).text())
          ? true
          : undefined,
      60_000,
      'leading',
    );
    // Let the first pass over every followed PVC finish and the heap settle.
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const rssAfterSync = await rssMiB(tracker.pid!);
    log(`RSS after the sync: ${rssAfterSync.toFixed(1)} MiB`);

    // 2. 100 concurrent expansions: first as the peers write, then all written at once.
    const arrivals = new PhaseArrivals();
    const watch = new Informer<VolumeExpansion & KubernetesObject>({
      kubeConfig,
      resource: { ...VOLUME_EXPANSIONS },
    });
    watch.on('add', arrivals.note);
    watch.on('update', arrivals.note);
    await watch.start();
    // The peers' informers: external-resizer and virt-controller read these, not the API server.
    const peerPvcs = new Informer<PersistentVolumeClaim & KubernetesObject>({
      kubeConfig,
      resource: { group: '', version: 'v1', plural: 'persistentvolumeclaims' },
    });
    const peerVmis = new Informer<VirtualMachineInstance & KubernetesObject>({
      kubeConfig,
      resource: { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' },
    });
    await Promise.all([peerPvcs.start(), peerVmis.start()]);
    const actors = new ExpansionActors(kubeConfig, {
      pvc: (namespace, name) => peerPvcs.get(namespace, name),
      vmi: (namespace, name) => peerVmis.get(namespace, name),
    });
    const cpuPids = await cpuPidsOf(tracker.pid!);
    const load = await readCpuTimes();
    const pacedTargets = targetsOf(run);
    await startExpansions(kubeConfig, pacedTargets, arrivals);
    const pacedBefore = await trackerSteps(url);
    const pacedCpu = await cpuOf(cpuPids);
    const pacedStart = performance.now();
    const paced = await peerPacedChains(actors, pacedTargets, arrivals);
    const pacedMs = performance.now() - pacedStart;
    const pacedCpuUsed = cpuBetween(pacedCpu, await cpuOf(cpuPids), pacedMs);
    const pacedAfter = await trackerSteps(url);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const burstTargets = targetsOf(run + STEP / 2);
    await startExpansions(kubeConfig, burstTargets, arrivals);
    await Promise.all(
      burstTargets.map((t) => actors.resizerStarts(t.namespace, t.claim, NEW_SIZE)),
    );
    await Promise.all(burstTargets.map((t) => actors.resizerGrowsPv(pvNameOf(t), NEW_SIZE)));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const burstCpu = await cpuOf(cpuPids);
    const burstStart = performance.now();
    const burst = await burstRounds(actors, burstTargets, arrivals, url);
    const burstCpuUsed = cpuBetween(burstCpu, await cpuOf(cpuPids), performance.now() - burstStart);
    const loadSteal = stealShare(load, await readCpuTimes());
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const rssAfterLoad = await rssMiB(tracker.pid!);
    await Promise.all([watch.stop(), peerPvcs.stop(), peerVmis.stop()]);
    const all = (samples: number[][]) => summary(samples.flat());
    return {
      objects: { pvcs: VMS * 2, pvs: VMS * 2, vms: VMS, vmis: VMS, pods: VMS * 2 },
      initialSyncMs: syncMs,
      syncSteal: percent(syncSteal),
      rssMiB: {
        afterSync: Number(rssAfterSync.toFixed(1)),
        afterLoad: Number(rssAfterLoad.toFixed(1)),
      },
      paced: {
        latencyMs: all(PHASES.map((phase) => paced.get(phase) ?? [])),
        phases: PHASES.map((phase) => ({ phase, ...summary(paced.get(phase) ?? []) })),
        tookMs: Math.round(pacedMs),
        cpuSeconds: pacedCpuUsed,
        queueWait: observed(observedBetween(pacedBefore.queueWait, pacedAfter.queueWait)),
        statusWrite: observed(observedBetween(pacedBefore.statusWrite, pacedAfter.statusWrite)),
      },
      burst: {
        latencyMs: all(burst.map((r) => r.samples)),
        cpuSeconds: burstCpuUsed,
        rounds: burst.map(({ samples, ...round }) => ({ ...round, ...summary(samples) })),
      },
      loadSteal: percent(loadSteal),
      loadAverage: (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' '),
    };
  } finally {
    if (tracker && tracker.exitCode === null) {
      const exited = new Promise((resolve) => tracker!.once('exit', resolve));
      tracker.kill('SIGTERM');
      await exited;
    }
  }
}

/** p50, p99, max and mean of some latencies (ms). */
function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (ms: number) => Number(ms.toFixed(1));
  return {
    samples: sorted.length,
    p50: round(quantile(sorted, 0.5)),
    p99: round(quantile(sorted, 0.99)),
    max: round(sorted[sorted.length - 1] ?? 0),
    mean: round(sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length),
  };
}

function cpuLine(c: Record<CpuPart | 'wall', number>): string {
  return `voe watch ${c.tracker}, kube-apiserver ${c.apiServer}, etcd ${c.etcd}, the bench ${c.bench}, in ${c.wall} s`;
}

/** The results section of docs/performance.md for one run. */
export async function resultsTable(result: Awaited<ReturnType<typeof measure>>): Promise<string> {
  const { rssMiB: rss, paced, burst } = result;
  const steps = (o: { count: number; meanMs: number }): string => `${o.meanMs} ms × ${o.count}`;
  const latency = (l: { samples: number; p50: number; p99: number; max: number }) =>
    `${l.p50} / ${l.p99} / ${l.max} ms`;
  return [
    await measuredOn(),
    `Load average at the end: ${result.loadAverage}; CPU stolen by the host during the load: ${result.loadSteal}.`,
    '',
    '| measure | result | goal |',
    '|---|---|---|',
    `| initial sync | ${(result.initialSyncMs / 1000).toFixed(1)} s | |`,
    `| RSS after the sync / after the load | ${rss.afterSync} / ${rss.afterLoad} MiB | < 200 MiB |`,
    `| latency p50 / p99 / max, as the peers write (${paced.latencyMs.samples} samples) | ${latency(paced.latencyMs)} | p99 < 100 ms |`,
    `| latency p50 / p99 / max, each phase's 100 writes at once (${burst.latencyMs.samples} samples) | ${latency(burst.latencyMs)} | |`,
    '',
    `As the peers write: the 100 expansions took ${(paced.tookMs / 1000).toFixed(1)} s; the tracker's queue wait ${steps(paced.queueWait)}, its status writes ${steps(paced.statusWrite)}.`,
    '',
    'CPU seconds used during the load (the machine has ' +
      `${cpus().length} cores): ${cpuLine(paced.cpuSeconds)} as the peers write; ` +
      `${cpuLine(burst.cpuSeconds)} with each phase's writes at once.`,
    '',
    '| phase | p50 / p99 / mean |',
    '|---|---|',
    ...paced.phases.map((r) => `| ${r.phase} | ${r.p50} / ${r.p99} / ${r.mean} ms |`),
    '',
    "Each phase's 100 writes at once: the latency, the actors' 100 writes, and the tracker's own steps during the round (mean × how many).",
    '',
    "| phase | p50 / p99 / mean | the actors' writes | the tracker's queue wait | its status writes |",
    '|---|---|---|---|---|',
    ...burst.rounds.map(
      (r) =>
        `| ${r.phase} | ${r.p50} / ${r.p99} / ${r.mean} ms | ${r.writesMs} ms | ${steps(r.queueWait)} | ${steps(r.statusWrite)} |`,
    ),
  ].join('\n');
}

async function main(): Promise<void> {
  log(
    `machine: ${cpus().length} vCPU, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  const cp = await startControlPlane({
    cacheDir: defaultCacheDir(),
    env: process.env,
    onProgress: log,
  });
  try {
    await installCrds(cp.kubeConfig);
    const stageStart = Date.now();
    await stageCluster(cp.kubeConfig, TRACKER_CLUSTER, log);
    log(`staged in ${Math.round((Date.now() - stageStart) / 1000)} s`);
    const result = await measure(cp.kubeConfig, cp.kubeconfigPath);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    await writeResults('tracker', await resultsTable(result));
  } finally {
    await cp.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
