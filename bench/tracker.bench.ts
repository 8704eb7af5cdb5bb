/**
 * Tracker benchmark (`npm run bench:tracker`): a real kube-apiserver + etcd holding 10,000 PVCs
 * (bound, with their 10,000 PVs), 5,000 VMs and their VMIs, and 10,000 pods (a virt-launcher and a
 * hotplug pod per VM), and `voe watch` running against it as its own process. Measures:
 *   1. the initial sync: from the start of `voe watch` to /readyz 200 (every cache listed);
 *   2. the tracker's steady RSS (VmRSS of its process, after the sync and again after the load);
 *   3. the latency from an actor's write to the phase update, over 100 concurrent expansions: the
 *      test actors write what external-resizer, kubelet and virt-controller write for 100 PVCs at
 *      once, four times (NodeResizePending, NodeResizing, VMUpdating, HypervisorResizing), and a
 *      watch on VolumeExpansions in this process notes when each new phase arrives; the latency
 *      runs from the write's answer to that arrival.
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
import { ExpansionActors } from '../src/demo/index.js';
import { percent, readCpuTimes, stealShare } from './support/cpu-steal.js';
import { chartSettings } from './support/chart-settings.js';
import { histogramTotals, observedBetween } from './support/histogram-totals.js';
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

    // 2. 100 concurrent expansions.
    const arrivals = new Map<string, number>();
    const watch = new Informer<VolumeExpansion & KubernetesObject>({
      kubeConfig,
      resource: { ...VOLUME_EXPANSIONS },
    });
    const note = (e: VolumeExpansion): void => {
      const key = `${e.metadata?.namespace}/${e.metadata?.name}/${e.status?.phase ?? ''}`;
      if (!arrivals.has(key)) arrivals.set(key, performance.now());
    };
    watch.on('add', note);
    watch.on('update', note);
    await watch.start();
    const actors = new ExpansionActors(kubeConfig);
    const step = VMS / EXPANSIONS;
    const picked = Array.from({ length: EXPANSIONS }, (_, k) => k * step + (run % step));
    const targets = picked.map((i) => ({
      namespace: ns(i),
      vm: vmName(i),
      claim: claimName(i, 0),
    }));
    const expansionKey = (t: (typeof targets)[number], phase: string) =>
      `${t.namespace}/${t.claim}-20gi/${phase}`;
    const load = await readCpuTimes();
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
          body: { spec: { resources: { requests: { storage: '20Gi' } } } },
        }),
      ),
    );
    await until(
      () =>
        targets.every((t) => arrivals.has(expansionKey(t, 'ControllerResizing')))
          ? true
          : undefined,
      120_000,
      'the 100 VolumeExpansions',
    );
    await Promise.all(targets.map((t) => actors.resizerStarts(t.namespace, t.claim, '20Gi')));
    await Promise.all(
      targets.map((t) => actors.resizerGrowsPv(`pvc-${t.namespace}-${t.claim}`, '20Gi')),
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const rounds: Array<{ phase: string; write: (t: (typeof targets)[number]) => Promise<void> }> =
      [
        { phase: 'NodeResizePending', write: (t) => actors.resizerNeedsNode(t.namespace, t.claim) },
        { phase: 'NodeResizing', write: (t) => actors.kubeletStarts(t.namespace, t.claim) },
        { phase: 'VMUpdating', write: (t) => actors.kubeletFinishes(t.namespace, t.claim) },
        {
          phase: 'HypervisorResizing',
          write: (t) => actors.virtControllerSyncs(t.namespace, t.vm, t.claim),
        },
      ];
    const latencies: number[] = [];
    const perRound: Array<{
      phase: string;
      p50: number;
      p99: number;
      mean: number;
      writesMs: number;
      queueWait: { count: number; meanMs: number };
      statusWrite: { count: number; meanMs: number };
      steal: number;
    }> = [];
    for (const round of rounds) {
      const cpu = await readCpuTimes();
      const stepsBefore = await trackerSteps(url);
      const written = new Map<string, number>();
      const roundStart = performance.now();
      await Promise.all(
        targets.map(async (t) => {
          await round.write(t);
          written.set(expansionKey(t, round.phase), performance.now());
        }),
      );
      await until(
        () => (targets.every((t) => arrivals.has(expansionKey(t, round.phase))) ? true : undefined),
        120_000,
        `phase ${round.phase}`,
      );
      const these = targets
        .map(
          (t) =>
            arrivals.get(expansionKey(t, round.phase))! -
            written.get(expansionKey(t, round.phase))!,
        )
        // An update seen before the write's own answer arrived: the write was done.
        .map((ms) => Math.max(0, ms))
        .sort((a, b) => a - b);
      latencies.push(...these);
      const stepsAfter = await trackerSteps(url);
      perRound.push({
        phase: round.phase,
        p50: quantile(these, 0.5),
        p99: quantile(these, 0.99),
        mean: these.reduce((sum, ms) => sum + ms, 0) / these.length,
        // The tracker's own steps over the round, from its histograms: the waits of changed PVCs
        // for a worker (those its own writes queue again included), its status writes' round trips.
        queueWait: observedBetween(stepsBefore.queueWait, stepsAfter.queueWait),
        statusWrite: observedBetween(stepsBefore.statusWrite, stepsAfter.statusWrite),
        // How long the actors' 100 writes took to be answered: the API server's share.
        writesMs: Math.max(...written.values()) - roundStart,
        steal: stealShare(cpu, await readCpuTimes()),
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    latencies.sort((a, b) => a - b);
    const loadSteal = stealShare(load, await readCpuTimes());
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const rssAfterLoad = await rssMiB(tracker.pid!);
    await watch.stop();
    return {
      objects: { pvcs: VMS * 2, pvs: VMS * 2, vms: VMS, vmis: VMS, pods: VMS * 2 },
      initialSyncMs: syncMs,
      syncSteal: percent(syncSteal),
      rssMiB: {
        afterSync: Number(rssAfterSync.toFixed(1)),
        afterLoad: Number(rssAfterLoad.toFixed(1)),
      },
      latencyMs: {
        samples: latencies.length,
        p50: Number(quantile(latencies, 0.5).toFixed(1)),
        p99: Number(quantile(latencies, 0.99).toFixed(1)),
        max: Number(latencies[latencies.length - 1]!.toFixed(1)),
      },
      rounds: perRound.map((r) => ({
        phase: r.phase,
        p50: Number(r.p50.toFixed(1)),
        p99: Number(r.p99.toFixed(1)),
        mean: Number(r.mean.toFixed(1)),
        writesMs: Math.round(r.writesMs),
        queueWait: observed(r.queueWait),
        statusWrite: observed(r.statusWrite),
        steal: percent(r.steal),
      })),
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

/** The results section of docs/performance.md for one run. */
export async function resultsTable(result: Awaited<ReturnType<typeof measure>>): Promise<string> {
  const { latencyMs: latency, rssMiB: rss } = result;
  const steps = (o: { count: number; meanMs: number }): string => `${o.meanMs} ms × ${o.count}`;
  return [
    await measuredOn(),
    `Load average at the end: ${result.loadAverage}; CPU stolen by the host during the load: ${result.loadSteal}.`,
    '',
    '| measure | result | goal |',
    '|---|---|---|',
    `| initial sync | ${(result.initialSyncMs / 1000).toFixed(1)} s | |`,
    `| RSS after the sync / after the load | ${rss.afterSync} / ${rss.afterLoad} MiB | < 200 MiB |`,
    `| latency p50 / p99 / max (${latency.samples} samples) | ${latency.p50} / ${latency.p99} / ${latency.max} ms | p99 < 100 ms |`,
    '',
    "Per phase change: the latency, the actors' 100 writes, and the tracker's own steps during the round (mean × how many).",
    '',
    "| phase | p50 / p99 / mean | the actors' writes | the tracker's queue wait | its status writes |",
    '|---|---|---|---|---|',
    ...result.rounds.map(
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
