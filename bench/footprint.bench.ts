/**
 * Footprint benchmark (`npm run bench:footprint`): the resident memory of each long-running voe
 * command, each as its own process against a real kube-apiserver + etcd, beside a bare `node -e`
 * process: `voe serve`, `voe watch`, `voe csi` (controller and node), each with the NODE_OPTIONS
 * its chart sets. Each runs twice: idle (the control plane with voe's CRD and nothing staged:
 * connected, caches empty) and at Harvester scale (10,000 bound PVCs and their PVs, 10,000 VMs with
 * their VMIs and virt-launcher pods). Measures the start to ready (/readyz 200; for `voe csi`, which
 * has no HTTP port, its "serving CSI" line) and, 15 s after ready, VmRSS, VmHWM (the peak) and,
 * where it serves /metrics, the used V8 heap, with the machine's 1-minute load average. Prints the figures and writes one table per command
 * into docs/performance.md ("footprint"), beside the memory request and limit of the chart.
 * VOE_FOOTPRINT_ONLY=serve (or watch, csi: the command's words after `voe`, comma-separated)
 * measures only those commands and prints their figures without writing docs/performance.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defaultCacheDir } from '../src/cli/cache-dir.js';
import { installCrds, startControlPlane } from '../src/controlplane/index.js';
import { chartSettings } from './support/chart-settings.js';
import { processRss } from './support/process-rss.js';
import { measuredOn, writeResults } from './support/results-section.js';
import { sizeFromFootprint, type MemorySizing } from './support/memory-sizing.js';
import { stageCluster, type ClusterShape } from './support/stage-cluster.js';

/** Harvester scale: 10,000 PVCs, 10,000 VMs with their VMIs and virt-launcher pods. */
const HARVESTER_SCALE: ClusterShape = { vms: 10_000, disks: 1 };
const SETTLE_MS = 15_000;
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const VOE_MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

const log = (line: string): void => void process.stderr.write(`bench:footprint: ${line}\n`);

/** How a command is started and how the bench knows it is ready. */
interface Command {
  name: string;
  args: (kubeconfig: string, tag: string) => string[];
  /** Where its /readyz and /metrics answer, read from its output so far. */
  endpoint?: (output: string) => Endpoint | undefined;
  /** Without an endpoint: the log line (msg) that says it serves. */
  readyLine?: string;
  /** Where the chart sets its memory and NODE_OPTIONS: [chart, values key]. */
  chart: [string, string];
  goal?: { idle?: number; scale?: number };
}

interface Endpoint {
  base: string;
  /** The dev server's own CA, not checked. */
  tls: boolean;
}

/** GET `path` of `endpoint`: its status and body, or status 0 when it does not answer. */
function get(endpoint: Endpoint, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = (endpoint.tls ? httpsRequest : httpRequest)(
      `${endpoint.base}${path}`,
      { rejectUnauthorized: false, timeout: 5_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', () => resolve({ status: 0, body: '' }));
      },
    );
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** The first JSON log line whose msg is `msg`. */
function logLine(output: string, msg: string): Record<string, unknown> | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes(msg)) continue;
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry['msg'] === msg) return entry;
    } catch {
      // not a log line
    }
  }
  return undefined;
}

const COMMANDS: Command[] = [
  {
    name: 'voe serve',
    args: (kubeconfig, tag) => [
      'serve',
      '--dev',
      '--kubeconfig',
      kubeconfig,
      '--port',
      '0',
      '--webhook-configuration-name',
      `voe-footprint-${tag}`,
      '--cache-sync-timeout',
      '600',
      '--log-level',
      'info',
    ],
    endpoint: (output) => {
      const port = logLine(output, 'webhook server listening')?.['port'];
      return typeof port === 'number'
        ? { base: `https://127.0.0.1:${port}`, tls: true }
        : undefined;
    },
    chart: ['volume-online-expansion', 'webhook'],
    goal: { scale: 150 },
  },
  {
    name: 'voe watch',
    args: (kubeconfig, tag) => [
      'watch',
      '--kubeconfig',
      kubeconfig,
      '--port',
      '0',
      '--bind-address',
      '127.0.0.1',
      '--lease-namespace',
      'default',
      '--lease-name',
      `footprint-${tag}`,
      '--log-level',
      'warn',
    ],
    endpoint: (output) => {
      const base = /at (http:\/\/\S+) /.exec(output)?.[1];
      return base === undefined ? undefined : { base, tls: false };
    },
    chart: ['volume-online-expansion', 'tracker'],
    goal: { scale: 200 },
  },
  {
    name: 'voe csi (controller)',
    args: (kubeconfig, tag) => [
      'csi',
      '--endpoint',
      `unix://${join(tmpdir(), `voe-footprint-controller-${tag}-${process.pid}.sock`)}`,
      '--services',
      'controller',
      '--kubeconfig',
      kubeconfig,
      '--node-id',
      'footprint-node',
      // As the chart runs it: with /metrics (which also tells the bench its heap).
      '--metrics-port',
      '0',
      '--metrics-bind-address',
      '127.0.0.1',
    ],
    readyLine: 'serving CSI',
    chart: ['voe-csi', 'controller'],
  },
  {
    name: 'voe csi (node)',
    args: (kubeconfig, tag) => [
      'csi',
      '--endpoint',
      `unix://${join(tmpdir(), `voe-footprint-node-${tag}-${process.pid}.sock`)}`,
      '--services',
      'node',
      '--kubeconfig',
      kubeconfig,
      '--node-id',
      'footprint-node',
      // As the chart runs it: with /metrics (which also tells the bench its heap).
      '--metrics-port',
      '0',
      '--metrics-bind-address',
      '127.0.0.1',
    ],
    readyLine: 'serving CSI',
    chart: ['voe-csi', 'node'],
    goal: { idle: 80 },
  },
];

/** The commands VOE_FOOTPRINT_ONLY names (each a prefix of the words after `voe`), or all. */
function selectedCommands(only: string | undefined): Command[] {
  const wanted = (only ?? '')
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  if (wanted.length === 0) return COMMANDS;
  const selected = COMMANDS.filter((command) =>
    wanted.some((word) => command.name.startsWith(`voe ${word}`)),
  );
  if (selected.length === 0) throw new Error(`VOE_FOOTPRINT_ONLY=${only} names no command`);
  return selected;
}

interface Footprint {
  readyMs: number;
  rssMiB: number;
  peakMiB: number;
  /** V8's used heap (nodejs_heap_size_used_bytes) when it serves /metrics. */
  heapUsedMiB?: number;
  /** The machine's 1-minute load average when the memory was read. */
  load: number;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** How the bench knows a process is ready, and reads its heap. */
interface Readiness {
  /** Resolves true once ready, from its output so far. */
  ready: (output: string) => Promise<boolean>;
  /** Its used heap in MiB, when it tells. */
  heapUsed?: (output: string) => Promise<number | undefined>;
}

/**
 * Starts `args` under node (with `nodeOptions` as NODE_OPTIONS), waits until ready, lets it settle
 * SETTLE_MS, reads its memory and stops it.
 */
async function footprintOf(
  args: string[],
  nodeOptions: string,
  readiness: Readiness,
): Promise<Footprint> {
  const started = performance.now();
  const env = { ...process.env, NODE_OPTIONS: nodeOptions };
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer): void => void (output += chunk.toString());
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  try {
    const deadline = Date.now() + 600_000;
    while (!(await readiness.ready(output))) {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output}`);
      if (Date.now() > deadline) throw new Error(`not ready in 600 s: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const readyMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const memory = await processRss(child.pid!);
    const heapUsedMiB = await readiness.heapUsed?.(output);
    return {
      readyMs,
      ...memory,
      ...(heapUsedMiB === undefined ? {} : { heapUsedMiB }),
      load: loadavg()[0]!,
    };
  } finally {
    await stop(child);
  }
}

/** V8's used heap in MiB from the /metrics of `endpoint`, when it tells. */
async function heapUsedAt(endpoint: Endpoint): Promise<number | undefined> {
  const { body } = await get(endpoint, '/metrics');
  const bytes = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(body)?.[1];
  return bytes === undefined ? undefined : Number(bytes) / 2 ** 20;
}

function readinessOf(command: Command): Readiness {
  const { endpoint, readyLine } = command;
  if (!endpoint)
    return {
      ready: (output) => Promise.resolve(logLine(output, readyLine ?? '') !== undefined),
      // voe csi names its /metrics in the line that says it serves.
      heapUsed: async (output) => {
        const metrics = logLine(output, readyLine ?? '')?.['metrics'];
        return typeof metrics === 'string'
          ? heapUsedAt({ base: metrics.replace(/\/metrics$/, ''), tls: false })
          : undefined;
      },
    };
  return {
    ready: async (output) => {
      const at = endpoint(output);
      return at !== undefined && (await get(at, '/readyz')).status === 200;
    },
    heapUsed: (output) => heapUsedAt(endpoint(output)!),
  };
}

const voe = async (command: Command, kubeconfig: string, tag: string): Promise<Footprint> =>
  footprintOf(
    [VOE_MAIN, ...command.args(kubeconfig, tag)],
    (await chartSettings(...command.chart)).nodeOptions,
    readinessOf(command),
  );

/** A bare `node -e` process, and one that only imports @kubernetes/client-node. */
async function baselines(): Promise<{ bare: Footprint; clientNode: Footprint }> {
  const alive = 'setInterval(() => {}, 1 << 30); console.log("up")';
  const up: Readiness = { ready: (output) => Promise.resolve(output.includes('up')) };
  return {
    bare: await footprintOf(['-e', alive], '', up),
    clientNode: await footprintOf(
      ['--input-type=module', '-e', `await import('@kubernetes/client-node'); ${alive}`],
      '',
      up,
    ),
  };
}

type Result = Awaited<ReturnType<typeof measureAll>>;

async function measureAll(commandsToRun: Command[]) {
  const base = await baselines();
  log(
    `bare node ${base.bare.rssMiB.toFixed(1)} MiB; with client-node ${base.clientNode.rssMiB.toFixed(1)} MiB`,
  );
  const cp = await startControlPlane({
    cacheDir: defaultCacheDir(),
    env: process.env,
    onProgress: log,
  });
  try {
    await installCrds(cp.kubeConfig);
    const idle: Footprint[] = [];
    for (const command of commandsToRun) {
      idle.push(await voe(command, cp.kubeconfigPath, 'idle'));
      log(`${command.name} idle: ${JSON.stringify(idle.at(-1))}`);
    }
    const stageStart = Date.now();
    await stageCluster(cp.kubeConfig, HARVESTER_SCALE, log);
    log(`staged in ${Math.round((Date.now() - stageStart) / 1000)} s`);
    const scale: Footprint[] = [];
    for (const command of commandsToRun) {
      scale.push(await voe(command, cp.kubeconfigPath, 'scale'));
      log(`${command.name} at scale: ${JSON.stringify(scale.at(-1))}`);
    }
    const commands = await Promise.all(
      commandsToRun.map(async (command, i) => ({
        name: command.name,
        idle: idle[i]!,
        scale: scale[i]!,
        chart: await chartSettings(...command.chart),
        sizing: sizeFromFootprint(scale[i]!),
        goal: command.goal ?? {},
      })),
    );
    return { ...base, commands };
  } finally {
    await cp.stop();
  }
}

const mib = (value: number): string => `${value.toFixed(1)} MiB`;
const goalCell = (rss: number, goal: number | undefined): string =>
  goal === undefined ? '' : `< ${goal} MiB: ${rss < goal ? 'met' : 'NOT met'}`;

const sizingText = (sizing: MemorySizing): string =>
  [
    ...(sizing.maxOldSpaceMiB === undefined
      ? []
      : [`\`--max-old-space-size=${sizing.maxOldSpaceMiB}\``]),
    `request ${sizing.requestMiB}Mi`,
    `limit ${sizing.limitMiB}Mi`,
  ].join(', ');

/** The results section of docs/performance.md: one table per command. */
async function resultsTable(result: Result): Promise<string> {
  const lines = [
    await measuredOn(),
    `A bare \`node -e\` process: ${mib(result.bare.rssMiB)}; one that only imports @kubernetes/client-node: ${mib(result.clientNode.rssMiB)}. At scale: ${HARVESTER_SCALE.vms.toLocaleString('en')} PVCs, PVs, VMs, VMIs and virt-launcher pods.`,
  ];
  for (const c of result.commands) {
    const row = (cluster: string, f: Footprint, goal: number | undefined): string =>
      `| ${cluster} | ${(f.readyMs / 1000).toFixed(1)} s | ${mib(f.rssMiB)} | ${mib(f.peakMiB)} | ${f.heapUsedMiB === undefined ? '' : mib(f.heapUsedMiB)} | ${c.chart.request} / ${c.chart.limit} | ${goalCell(f.rssMiB, goal)} | ${f.load.toFixed(2)} |`;
    lines.push(
      '',
      `#### ${c.name}`,
      '',
      `NODE_OPTIONS from the chart: ${c.chart.nodeOptions ? `\`${c.chart.nodeOptions}\`` : 'none'}.`,
      '',
      '| cluster | ready after | RSS 15 s after ready | peak RSS | V8 heap used | chart request / limit | goal | load (1 min) |',
      '|---|---|---|---|---|---|---|---|',
      row('idle', c.idle, c.goal.idle),
      row('at scale', c.scale, c.goal.scale),
      '',
      `Sized from this run at scale: ${sizingText(c.sizing)}.`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const commandsToRun = selectedCommands(process.env['VOE_FOOTPRINT_ONLY']);
  const result = await measureAll(commandsToRun);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (commandsToRun.length < COMMANDS.length) return; // a partial run leaves the tables as they are
  await writeResults('footprint', await resultsTable(result));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
