/**
 * Webhook benchmark: one voe webhook process (bench/support/webhook-bench-server.ts: what
 * `voe serve` runs, over caches of 10,000 PVCs and 10,000 VMs) answering real-size PVC resize
 * AdmissionReviews over HTTPS, sent open loop at fixed rates (100, 500 and 1,000 reviews/s, each
 * for RATE_S seconds) by a load generator in another process (bench/support/paced-load.ts).
 * Prints, and writes into docs/performance.md, p50/p99 latency per rate and the server's resident
 * memory (RSS). Targets: p99 < 5 ms at 500 reviews/s, RSS < 200 MiB.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCertificateAuthority, issueServingCertificate } from '../src/tls/index.js';
import { buildFixture, resizeReview, seededRandom } from './support/cluster-fixtures.js';
import { percent, readCpuTimes, stealShare } from './support/cpu-steal.js';
import type { PacedResult } from './support/paced-load.js';
import { pacedLoadInProcess } from './support/paced-load-process.js';
import { measuredOn, writeResults } from './support/results-section.js';
import type { BenchServerReady } from './support/webhook-bench-server.js';

/** PVCs, and VMs, in the server's caches. */
const OBJECTS = 10_000;
const RATES = [100, 500, 1_000] as const;
/** Measured seconds per rate, each after a 1 s warm-up at the same rate. */
const RATE_S = 10;
const CONNECTIONS = 16;
const DISTINCT_REVIEWS = 500;
const PATH = '/validate/pvc-resize';
/** The targets: p99 at TARGET_RATE reviews/s, and the server's RSS. */
const TARGET_RATE = 500;
const TARGET_P99_MS = 5;
const TARGET_RSS_MIB = 200;

async function startServer(
  certFile: string,
  keyFile: string,
): Promise<ChildProcess & { ready: BenchServerReady }> {
  const script = fileURLToPath(new URL('./support/webhook-bench-server.js', import.meta.url));
  const child = fork(script, [certFile, keyFile, String(OBJECTS)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<BenchServerReady>((resolve, reject) => {
    child.once('message', (message: BenchServerReady) => resolve(message));
    child.once('exit', (code) => reject(new Error(`the webhook server exited with ${code}`)));
  });
  return Object.assign(child, { ready });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Resident memory of process `pid` now, in MiB (VmRSS of /proc/PID/status). */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  if (!Number.isFinite(kB)) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return kB / 1024;
}

/** Samples the RSS of `pid` every 200 ms until the returned function is called; it resolves with the largest. */
function sampleRss(pid: number): () => Promise<number> {
  let largest = 0;
  let sampling = Promise.resolve();
  const sample = (): void => {
    sampling = sampling.then(async () => {
      largest = Math.max(largest, await rssMiB(pid));
    });
  };
  sample();
  const timer = setInterval(sample, 200);
  return async () => {
    clearInterval(timer);
    sample();
    await sampling;
    return largest;
  };
}

/** The request bodies only: the fixture is dropped so the bench process stays small. */
function reviewBodies(): string[] {
  const fixture = buildFixture(OBJECTS);
  const rand = seededRandom(7);
  return Array.from({ length: DISTINCT_REVIEWS }, (_, i) =>
    JSON.stringify(resizeReview(fixture.pvcs[Math.floor(rand() * OBJECTS)]!, `bench-${i}`)),
  );
}

const ms = (v: number): string => `${v.toFixed(2)} ms`;
const mib = (v: number): string => `${v.toFixed(0)} MiB`;

interface Measured extends PacedResult {
  rssMiB: number;
  steal: number;
  /** The machine's 1-minute load average at the end of the rate. */
  load: number;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-webhook-bench-'));
  let server: ChildProcess | undefined;
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

    const started = await startServer(certFile, keyFile);
    server = started;
    const { port, pid } = started.ready;
    const load = (rate: number, durationS: number): Promise<PacedResult> =>
      pacedLoadInProcess({
        port,
        path: PATH,
        caPem: ca.certificatePem,
        bodies,
        rate,
        durationS,
        connections: CONNECTIONS,
      });
    const idleRss = await rssMiB(pid);
    // Warm-up (JIT, TLS sessions), not recorded.
    await load(RATES[RATES.length - 1]!, 2);

    const measured: Measured[] = [];
    for (const rate of RATES) {
      const machineBefore = await readCpuTimes();
      const largestRss = sampleRss(pid);
      const result = await load(rate, RATE_S);
      const rss = await largestRss();
      const steal = stealShare(machineBefore, await readCpuTimes());
      if (result.failed > 0 || result.ok !== result.sent)
        throw new Error(`at ${rate} reviews/s: ${result.failed} of ${result.sent} reviews failed`);
      measured.push({ ...result, rssMiB: rss, steal, load: loadavg()[0]! });
      process.stdout.write(
        `${rate} reviews/s: p50 ${ms(result.p50Ms)}, p99 ${ms(result.p99Ms)}, max ${ms(result.maxMs)}, RSS ${mib(rss)}\n`,
      );
    }

    const atTarget = measured[RATES.indexOf(TARGET_RATE)]!;
    const largest = Math.max(idleRss, ...measured.map((m) => m.rssMiB));
    const table = [
      '| reviews/s sent | answered/s | p50 | p99 | max | server RSS (largest) | generator lag (max) | CPU stolen by the host | load (1 min) |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...measured.map(
        (m, i) =>
          `| ${RATES[i]} | ${m.rate.toFixed(0)} | ${ms(m.p50Ms)} | ${ms(m.p99Ms)} | ${ms(m.maxMs)} | ${mib(m.rssMiB)} | ${ms(m.maxLagMs)} | ${percent(m.steal)} | ${m.load.toFixed(2)} |`,
      ),
    ];
    const verdict =
      `p99 at ${TARGET_RATE} reviews/s: ${ms(atTarget.p99Ms)} (target < ${TARGET_P99_MS} ms: ${atTarget.p99Ms < TARGET_P99_MS ? 'met' : 'NOT met'}); ` +
      `largest RSS: ${mib(largest)} (target < ${TARGET_RSS_MIB} MiB: ${largest < TARGET_RSS_MIB ? 'met' : 'NOT met'}).`;
    const results = [
      await measuredOn(),
      `Reviews: ${DISTINCT_REVIEWS} distinct, mean ${meanBytes} bytes; ${RATE_S} s per rate; server RSS ${mib(idleRss)} with its caches built, before the first review.`,
      '',
      ...table,
      '',
      verdict,
    ].join('\n');
    process.stdout.write(`\n${table.join('\n')}\n${verdict}\n`);
    await writeResults('webhook', results);
  } finally {
    if (server) await stop(server);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
