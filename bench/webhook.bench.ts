/**
 * Webhook benchmark: the voe HTTPS webhook with warm caches of 10,000 PVCs and VMs (and the VMIs of
 * the running VMs, about 7,000), answering real-size PVC resize AdmissionReviews, next to a bare node:https server answering a constant
 * AdmissionReview, measured in the same run:
 *   1. fixed concurrency with wrk (throughput, p50/p99; bench/support/wrk-load.ts) for both, and the
 *      ratio voe/bare, voe in one process and with `--workers 2` (one worker per vCPU of the 2-vCPU machine);
 *   2. a fixed rate of 1,000 requests/s, open loop (bench/support/paced-load.ts), against voe both
 *      ways and the bare server (p99).
 * Targets: p99 < 5 ms at 1,000 requests/s; throughput >= 50 % of the bare server.
 * Writes the "webhook" section of docs/performance.md.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCertificateAuthority, issueServingCertificate } from '../src/tls/index.js';
import { buildFixture, resizeReview, seededRandom } from './support/cluster-fixtures.js';
import { percent, readCpuTimes, stealShare } from './support/cpu-steal.js';
import type { PacedResult } from './support/paced-load.js';
import { pacedLoadInProcess } from './support/paced-load-process.js';
import { prepareWrkLoad, type WrkResult } from './support/wrk-load.js';

const OBJECTS = 10_000;
const CONNECTIONS = 16;
const ROUNDS = 7;
const ROUND_S = 4;
const RATE = 1_000;
const RATE_S = 3;
const RATE_ROUNDS = 5;
const DISTINCT_REVIEWS = 500;
/** `voe serve --workers 2`: one worker per vCPU of the 2-vCPU machine the targets are judged on. */
const WORKERS = 2;

type Mode = 'voe' | 'voe-workers' | 'bare' | 'bare-parse' | 'bare-scan';
interface Server {
  port: number;
  child: ChildProcess;
  pids: number[];
}

async function startServer(mode: Mode, certFile: string, keyFile: string): Promise<Server> {
  const script = fileURLToPath(new URL('./support/webhook-bench-server.js', import.meta.url));
  const child = fork(script, [mode, certFile, keyFile, String(OBJECTS), String(WORKERS)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port, pids } = await new Promise<{ port: number; pids: number[] }>((resolve, reject) => {
    child.once('message', (m: { port: number; pids: number[] }) => resolve(m));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { port, child, pids };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function check(result: WrkResult, label: string): void {
  if (result.socketErrors > 0 || result.non2xx > 0) {
    throw new Error(
      `${label}: ${result.socketErrors} socket errors or timeouts, ${result.non2xx} non-2xx responses`,
    );
  }
}

const ms = (v: number): string => `${v.toFixed(2)} ms`;
const us = (v: number): string => `${v.toFixed(0)} µs`;

/** CPU time (user + system) the processes of a server have used, in ms: /proc/PID/stat counts clock ticks of 10 ms. */
async function cpuMs(server: Server): Promise<number> {
  let total = 0;
  for (const pid of server.pids) {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
    total += (Number(fields[11]) + Number(fields[12])) * 10;
  }
  return total;
}

/** The request bodies only: the 10,000-object fixture is dropped so the load generator's heap stays small (no long GC pauses). */
function reviewBodies(): string[] {
  const fixture = buildFixture(OBJECTS);
  const rand = seededRandom(7);
  return Array.from({ length: DISTINCT_REVIEWS }, (_, i) =>
    JSON.stringify(resizeReview(fixture.pvcs[Math.floor(rand() * OBJECTS)]!, `bench-${i}`)),
  );
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-webhook-bench-'));
  const servers: ChildProcess[] = [];
  try {
    const ca = await createCertificateAuthority('voe-bench-ca');
    const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    await writeFile(certFile, serving.certificatePem);
    await writeFile(keyFile, serving.keyPem, { mode: 0o600 });

    const bodies = reviewBodies();
    const meanBytes = Math.round(
      bodies.reduce((n, body) => n + Buffer.byteLength(body), 0) / bodies.length,
    );
    process.stdout.write(
      `webhook bench: ${OBJECTS} PVCs + ${OBJECTS} VMs (+ the running ones' VMIs) in the caches, ${DISTINCT_REVIEWS} distinct resize reviews (mean ${meanBytes} bytes)\n`,
    );

    const voe = await startServer('voe', certFile, keyFile);
    servers.push(voe.child);
    const voeWorkers = await startServer('voe-workers', certFile, keyFile);
    servers.push(voeWorkers.child);
    const bare = await startServer('bare', certFile, keyFile);
    servers.push(bare.child);
    const bareParse = await startServer('bare-parse', certFile, keyFile);
    servers.push(bareParse.child);
    const bareScan = await startServer('bare-scan', certFile, keyFile);
    servers.push(bareScan.child);

    // Warm-up (JIT, TLS sessions), not recorded.
    const wrk = await prepareWrkLoad(dir, '/validate/pvc-resize', bodies);
    for (const server of [voe, voeWorkers, bare, bareParse, bareScan])
      await wrk.run(server.port, { connections: CONNECTIONS, durationS: 2 });

    // Fixed concurrency, alternating bare/voe rounds so background load on the machine hits both alike.
    type Measured = WrkResult & { cpuUs: number; steal: number };
    const rounds: Array<{
      bare: Measured;
      bareParse: Measured;
      bareScan: Measured;
      voe: Measured;
      voeWorkers: Measured;
      ratio: number;
      workersRatio: number;
    }> = [];
    const measuredLoad = async (server: Server, label: string): Promise<Measured> => {
      const before = await cpuMs(server);
      const machineBefore = await readCpuTimes();
      const result = await wrk.run(server.port, { connections: CONNECTIONS, durationS: ROUND_S });
      const steal = stealShare(machineBefore, await readCpuTimes());
      const cpuUs = (((await cpuMs(server)) - before) * 1000) / Math.max(1, result.requests);
      check(result, label);
      return Object.assign(result, { cpuUs, steal });
    };
    const byName = { bare, voe, voeWorkers, bareParse, bareScan };
    type ServerName = keyof typeof byName;
    const order: ServerName[] = ['bare', 'voe', 'voeWorkers', 'bareParse', 'bareScan'];
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round runs the servers in the reverse order: the host's speed drifts over tens of
      // seconds, and a fixed order would always give the later servers the same side of a drift.
      const measured = {} as Record<ServerName, Measured>;
      for (const name of round % 2 === 0 ? order : [...order].reverse())
        measured[name] = await measuredLoad(byName[name], name);
      rounds.push({
        ...measured,
        ratio: measured.voe.requestsPerSecond / measured.bare.requestsPerSecond,
        workersRatio: measured.voeWorkers.requestsPerSecond / measured.bare.requestsPerSecond,
      });
    }
    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(ROUNDS / 2)]!;
    const ratio = median.ratio;
    const workersMedian = [...rounds].sort((a, b) => a.workersRatio - b.workersRatio)[
      Math.floor(ROUNDS / 2)
    ]!;
    const workersRatio = workersMedian.workersRatio;

    // Fixed rate, open loop (see bench/support/paced-load.ts).
    const metricsBefore = await scrape(voe.port, ca.certificatePem);
    type Paced = PacedResult & { steal: number };
    const pacedRounds: Array<{ voe: Paced; voeWorkers: Paced; bare: Paced }> = [];
    const paced = async (server: Server): Promise<Paced> => {
      const machineBefore = await readCpuTimes();
      const result = await pacedLoadInProcess({
        port: server.port,
        path: '/validate/pvc-resize',
        caPem: ca.certificatePem,
        bodies,
        rate: RATE,
        durationS: RATE_S,
      });
      return { ...result, steal: stealShare(machineBefore, await readCpuTimes()) };
    };
    for (let round = 0; round < RATE_ROUNDS; round++) {
      const pacedVoe = await paced(voe);
      const pacedVoeWorkers = await paced(voeWorkers);
      const pacedBare = await paced(bare);
      for (const [label, r] of [
        ['voe', pacedVoe],
        ['voe-workers', pacedVoeWorkers],
        ['bare', pacedBare],
      ] as const) {
        if (r.failed > 0) throw new Error(`${label} at fixed rate: ${r.failed} failed requests`);
      }
      pacedRounds.push({ voe: pacedVoe, voeWorkers: pacedVoeWorkers, bare: pacedBare });
    }
    const metricsAfter = await scrape(voe.port, ca.certificatePem);
    const served = bucketCount(metricsAfter, '+Inf') - bucketCount(metricsBefore, '+Inf');
    const over1 =
      served - (bucketCount(metricsAfter, '0.001') - bucketCount(metricsBefore, '0.001'));
    const over5 =
      served - (bucketCount(metricsAfter, '0.005') - bucketCount(metricsBefore, '0.005'));
    const pacedVoe = [...pacedRounds].sort((a, b) => a.voe.p99Ms - b.voe.p99Ms)[
      Math.floor(RATE_ROUNDS / 2)
    ]!.voe;
    const pacedVoeWorkers = [...pacedRounds].sort(
      (a, b) => a.voeWorkers.p99Ms - b.voeWorkers.p99Ms,
    )[Math.floor(RATE_ROUNDS / 2)]!.voeWorkers;
    const pacedBare = [...pacedRounds].sort((a, b) => a.bare.p99Ms - b.bare.p99Ms)[
      Math.floor(RATE_ROUNDS / 2)
    ]!.bare;
    const parseRatio = median.voe.requestsPerSecond / median.bareParse.requestsPerSecond;

    const lines = [
      `| run | requests/s | p50 | p99 | server CPU per request | CPU stolen by the host |`,
      `|---|---|---|---|---|---|`,
      ...rounds.flatMap((r, i) => [
        `| round ${i + 1}: bare node:https, constant AdmissionReview, ${CONNECTIONS} connections | ${r.bare.requestsPerSecond.toFixed(0)} | ${ms(r.bare.p50Ms)} | ${ms(r.bare.p99Ms)} | ${us(r.bare.cpuUs)} | ${percent(r.bare.steal)} |`,
        `| round ${i + 1}: voe webhook, one process, ${CONNECTIONS} connections (ratio ${(r.ratio * 100).toFixed(1)} %) | ${r.voe.requestsPerSecond.toFixed(0)} | ${ms(r.voe.p50Ms)} | ${ms(r.voe.p99Ms)} | ${us(r.voe.cpuUs)} | ${percent(r.voe.steal)} |`,
        `| round ${i + 1}: voe webhook, ${WORKERS} workers, ${CONNECTIONS} connections (ratio ${(r.workersRatio * 100).toFixed(1)} %) | ${r.voeWorkers.requestsPerSecond.toFixed(0)} | ${ms(r.voeWorkers.p50Ms)} | ${ms(r.voeWorkers.p99Ms)} | ${us(r.voeWorkers.cpuUs)} | ${percent(r.voeWorkers.steal)} |`,
        `| round ${i + 1}: bare node:https + JSON.parse of the review, ${CONNECTIONS} connections | ${r.bareParse.requestsPerSecond.toFixed(0)} | ${ms(r.bareParse.p50Ms)} | ${ms(r.bareParse.p99Ms)} | ${us(r.bareParse.cpuUs)} | ${percent(r.bareParse.steal)} |`,
        `| round ${i + 1}: bare node:https + a well-formedness scan of the review building nothing, ${CONNECTIONS} connections | ${r.bareScan.requestsPerSecond.toFixed(0)} | ${ms(r.bareScan.p50Ms)} | ${ms(r.bareScan.p99Ms)} | ${us(r.bareScan.cpuUs)} | ${percent(r.bareScan.steal)} |`,
      ]),
      ...pacedRounds.flatMap((r, i) => [
        `| round ${i + 1}: voe webhook, one process, fixed ${RATE} requests/s, open loop (generator lag max ${ms(r.voe.maxLagMs)}) | ${r.voe.rate.toFixed(0)} | ${ms(r.voe.p50Ms)} | ${ms(r.voe.p99Ms)} (max ${ms(r.voe.maxMs)}) | | ${percent(r.voe.steal)} |`,
        `| round ${i + 1}: voe webhook, ${WORKERS} workers, fixed ${RATE} requests/s, open loop (generator lag max ${ms(r.voeWorkers.maxLagMs)}) | ${r.voeWorkers.rate.toFixed(0)} | ${ms(r.voeWorkers.p50Ms)} | ${ms(r.voeWorkers.p99Ms)} (max ${ms(r.voeWorkers.maxMs)}) | | ${percent(r.voeWorkers.steal)} |`,
        `| round ${i + 1}: bare node:https, fixed ${RATE} requests/s, open loop (generator lag max ${ms(r.bare.maxLagMs)}) | ${r.bare.rate.toFixed(0)} | ${ms(r.bare.p50Ms)} | ${ms(r.bare.p99Ms)} (max ${ms(r.bare.maxMs)}) | | ${percent(r.bare.steal)} |`,
      ]),
    ];
    const verdicts = [
      `throughput ratio voe/bare with \`--workers ${WORKERS}\` (median of ${ROUNDS} alternating rounds): **${(workersRatio * 100).toFixed(1)} %** (target >= 50 %: ${workersRatio >= 0.5 ? 'met' : 'NOT met'}); the bare server is one process`,
      `throughput ratio voe/bare in one process (\`--workers 1\`, the default; median of ${ROUNDS} alternating rounds): **${(ratio * 100).toFixed(1)} %** (${ratio >= 0.5 ? 'meets' : 'does NOT meet'} the 50 % target by itself)`,
      `throughput ratio voe in one process/(bare + JSON.parse) in the median round: ${(parseRatio * 100).toFixed(1)} %; (bare + JSON.parse)/bare: ${((median.bareParse.requestsPerSecond / median.bare.requestsPerSecond) * 100).toFixed(1)} %: what decoding the whole ${meanBytes}-byte review costs, before any decision`,
      `(bare + well-formedness scan)/bare in the median round: ${((median.bareScan.requestsPerSecond / median.bare.requestsPerSecond) * 100).toFixed(1)} %: even a decoder that builds no objects at all (and so could not hand a validator the request) costs this much of the constant server's throughput, before the decision, the metrics and the answer`,
      `server CPU per request (user + system time of the server's processes, /proc) in the median round: bare ${us(median.bare.cpuUs)}, bare + JSON.parse ${us(median.bareParse.cpuUs)}, bare + scan ${us(median.bareScan.cpuUs)}, voe in one process ${us(median.voe.cpuUs)}, voe with ${WORKERS} workers ${us(workersMedian.voeWorkers.cpuUs)} (all processes); a server that answers fewer requests per wake-up also pays more per request (system calls, TLS records), so these grow as throughput falls`,
      `inside the one-process voe server (voe_webhook_request_duration_seconds) during the fixed-rate rounds (all requests it answered, with each round's connection-opening requests and 1 s warm-up): ${over1} of ${served} took over 1 ms, ${over5} over 5 ms`,
      `p99 at ${RATE} requests/s (median of ${RATE_ROUNDS} rounds of ${RATE_S} s): **${ms(pacedVoeWorkers.p99Ms)}** with ${WORKERS} workers, **${ms(pacedVoe.p99Ms)}** in one process (target < 5 ms: ${pacedVoeWorkers.p99Ms < 5 && pacedVoe.p99Ms < 5 ? 'met by both' : 'NOT met by both'}); bare server ${ms(pacedBare.p99Ms)}; all rounds voe ${WORKERS} workers ${pacedRounds.map((r) => r.voeWorkers.p99Ms.toFixed(2)).join(', ')} ms, voe one process ${pacedRounds.map((r) => r.voe.p99Ms.toFixed(2)).join(', ')} ms, bare ${pacedRounds.map((r) => r.bare.p99Ms.toFixed(2)).join(', ')} ms`,
    ];
    process.stdout.write(`${lines.join('\n')}\n${verdicts.join('\n')}\n`);

    const cpu = cpus();
    const machine = `${cpu.length} x ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}`;
    const section = [
      '## webhook',
      '',
      '<!-- written by `npm run bench:webhook` (bench/webhook.bench.ts); edits are overwritten -->',
      `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}.`,
      '',
      `Setup: each server in its own process (voe also as \`voe serve --workers ${WORKERS}\` runs it: ${WORKERS} worker processes sharing`,
      'the port, started by bench/support/webhook-bench-server.ts with the same startWorkerPool and serveAsWorker; one worker per',
      'vCPU of the 2-vCPU machine the targets are judged on); TLS 1.3 with an ECDSA P-256 certificate, keep-alive connections. voe serves',
      `/validate/pvc-resize with the real admission validators (decideResize) over warm caches of ${OBJECTS} PVCs and ${OBJECTS}`,
      `VMs (the informers' Cache shape with the VMs-by-PVC index, the running VMs' VMIs cached lean, StorageClasses, KubeVirt,`,
      'Setting, Longhorn Volumes and version; the objects without their managedFields, as the informers keep them), runs one',
      'full garbage collection once they are built as `voe serve` does once its',
      `caches have listed, and logs at info to /dev/null; the requests are ${DISTINCT_REVIEWS} real-size PVC resize AdmissionReviews`,
      `(mean ${meanBytes} bytes: both objects with annotations and managedFields). "bare" reads the body and answers a`,
      'constant AdmissionReview; "bare + JSON.parse" also decodes the whole review and echoes its uid; "bare + scan" only',
      'checks that the body is well-formed JSON without building anything (bench/support/scan-json.ts). voe decodes the',
      'review without its managedFields lists (checked for well-formedness, not built: src/webhook/json-without-managed-fields.ts).',
      '',
      `Fixed concurrency: wrk (one thread, ${CONNECTIONS} keep-alive connections, each sending the reviews in turn, formatted once;`,
      'bench/support/wrk-load.ts), a load generator in C using ~21–25 µs of CPU per request here, so that it takes as little',
      'as it can of the 2 vCPUs the servers need (autocannon, in the bench process until session 26, used 67–200 µs);',
      `${ROUNDS} rounds of ${ROUND_S} s alternating the servers (every other round in reverse order) so background load on this`,
      'shared 2-vCPU VM hits them alike; the median ratio is reported.',
      `Fixed rate: an open-loop generator (\`bench/support/paced-load.ts\`, a fresh process per run) opens its connections`,
      `first, sends one request every millisecond whatever earlier answers did, discards a 1 s warm-up and records each`,
      "latency in nanoseconds. (A rate-limited autocannon sends each connection's per-second quota as one burst, and a",
      'generator that opens connections during the run measures TLS handshake storms: both give p99s of tens of ms for the',
      `bare server too.) ${RATE_ROUNDS} rounds per server, median p99 reported; the server's own histogram`,
      '(`voe_webhook_request_duration_seconds`, headers received to answer written) shows the time spent inside voe.',
      "The last column is the share of the machine's CPU time the hypervisor gave to other guests during that run (steal,",
      'from /proc/stat): on a shared host, a run with more than a few percent of it is disturbed beyond anything the servers do.',
      '',
      ...lines,
      '',
      ...verdicts.map((v) => `- ${v}`),
      '',
    ].join('\n');
    await writeSection(section);
  } finally {
    await Promise.all(servers.map(stop));
    await rm(dir, { recursive: true, force: true });
  }
}

function scrape(port: number, caPem: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/metrics', ca: caPem }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sum over label sets of voe_webhook_request_duration_seconds_bucket{le=<le>, webhook="pvc-resize"}. */
function bucketCount(metrics: string, le: string): number {
  let total = 0;
  for (const line of metrics.split('\n')) {
    if (
      line.startsWith(`voe_webhook_request_duration_seconds_bucket{le="${le}",webhook="pvc-resize"`)
    )
      total += Number(line.split(' ').at(-1));
  }
  return total;
}

/** Replaces (or appends) the "## webhook" section of docs/performance.md, leaving other sections alone. */
async function writeSection(section: string): Promise<void> {
  const file = fileURLToPath(new URL('../../docs/performance.md', import.meta.url));
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    text =
      '# Performance\n\nMeasurements from `npm run bench`; each section is written by its benchmark.\n';
  }
  const start = text.indexOf('\n## webhook\n');
  if (start >= 0) {
    const next = text.indexOf('\n## ', start + 1);
    text = text.slice(0, start + 1) + section + (next >= 0 ? text.slice(next + 1) : '');
  } else {
    text = `${text.trimEnd()}\n\n${section}`;
  }
  await writeFile(file, text.endsWith('\n') ? text : `${text}\n`);
}

await main();
