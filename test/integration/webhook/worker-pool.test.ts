import { test } from 'node:test';
import assert from 'node:assert/strict';
import cluster from 'node:cluster';
import { X509Certificate } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { fileURLToPath } from 'node:url';
import { startWorkerPool, sumSamples, WebhookError, type WorkerPool, type WorkerPoolOptions } from '../../../src/webhook/index.js';
import { captureLogger } from '../../support/capture-logger.js';
import { DeferredClock } from '../../support/deferred-clock.js';
import { eventually } from '../../support/held-clock.js';
import { httpsRequest, pvcReview, writeServingFiles, type ServingFiles } from '../../support/webhook-client.js';

const WORKER = fileURLToPath(new URL('../../support/fixtures/pool-worker.js', import.meta.url));

const alive = (pid: number): boolean => { try { process.kill(pid, 0); return true; } catch { return false; } };

/**
 * How long a wait that includes a worker's start may last before the test gives up: a worker
 * reported its caches 16-21 s after its fork under a load average of 15-18 on 2 cores (measured);
 * only a broken run waits this long.
 */
const START_MS = 120_000;

/**
 * The `voe:caches` reports of the workers, as the pool takes them in: node:cluster emits a
 * worker's message on `cluster` from the listener that fork() adds first, in the same turn as the
 * pool's own listener, so a report seen here is one the pool has.
 */
function cacheReports(t: { after: (fn: () => void) => void }): Array<{ pid: number; ready: boolean; unsynced: string[] }> {
  const reports: Array<{ pid: number; ready: boolean; unsynced: string[] }> = [];
  const onMessage = (worker: { process: { pid?: number } }, message: { type?: unknown; ready?: boolean; unsynced?: string[] }): void => {
    if (message?.type === 'voe:caches') reports.push({ pid: worker.process.pid!, ready: message.ready!, unsynced: message.unsynced! });
  };
  cluster.on('message', onMessage);
  t.after(() => { cluster.off('message', onMessage); });
  return reports;
}

type PoolTuning = Pick<WorkerPoolOptions, 'heartbeatIntervalMs' | 'heartbeatTimeoutMs' | 'stopTimeoutMs' | 'metricsTimeoutMs' | 'restartLimit' | 'replacementTimeoutMs'>;

async function startPool(t: { after: (fn: () => Promise<void>) => void }, options: { ready?: boolean; env?: Record<string, string>; signal?: AbortSignal; tuning?: PoolTuning; clock?: DeferredClock } = {}): Promise<{ pool: WorkerPool; files: ServingFiles; readyFile: string; logs: ReturnType<typeof captureLogger> }> {
  const files = await writeServingFiles();
  const readyFile = join(files.dir, 'ready');
  if (options.ready) await writeFile(readyFile, '');
  const logs = captureLogger();
  // Before the pool's stop: its timers (stop() kills on one) run in real time again.
  const clock = options.clock;
  if (clock) t.after(async () => clock.release());
  t.after(() => files.cleanup());
  const pool = await startWorkerPool({
    count: 2, exec: WORKER, args: [files.certFile, files.keyFile, readyFile], logger: logs.logger, listenTimeoutMs: START_MS,
    ...(options.env ? { env: options.env } : {}), ...(options.signal ? { signal: options.signal } : {}), ...options.tuning, ...(clock ? { clock } : {}),
  });
  t.after(() => pool.stop().catch(() => undefined));
  return { pool, files, readyFile, logs };
}

test('two workers share the port; /readyz on either says ready only when every worker\'s caches are synced; /metrics sums both; stop() ends them', async (t) => {
  const { pool, files, readyFile } = await startPool(t);
  const ca = files.ca.certificatePem;
  const port = pool.address.port;
  const get = (path: string) => httpsRequest(port, ca, { path, method: 'GET', agent: new Agent({ keepAlive: false }) });
  assert.equal(pool.pids.length, 2);

  // Worker 2's caches are synced, worker 1's are not: the pool is not ready, whichever worker answers.
  await eventually(async () => {
    for (let i = 0; i < 4; i++) {
      const readyz = await get('/readyz');
      if (readyz.status !== 503 || !/caches not synced \(fake\.example\)/.test(readyz.body)) return false;
    }
    return true;
  }, 20_000, 'every /readyz 503 naming worker 1\'s unsynced resource');
  assert.deepEqual(pool.caches(), { ready: false, unsynced: ['fake.example'], notServed: [] });

  await writeFile(readyFile, '');
  await eventually(async () => {
    for (let i = 0; i < 4; i++) if ((await get('/readyz')).status !== 200) return false;
    return true;
  }, 20_000, 'every /readyz 200 once worker 1 synced');
  assert.equal(pool.caches().ready, true);

  const uids = Array.from({ length: 6 }, (_, i) => `pool-${i}`);
  for (const uid of uids) {
    const review = await httpsRequest(port, ca, { path: '/validate/pvc-resize', body: JSON.stringify(pvcReview(uid)), agent: new Agent({ keepAlive: false }) });
    assert.deepEqual((review.json() as { response: unknown }).response, { uid, allowed: true });
  }
  // A worker logs an answer just after sending it, so the last line may land after the client has
  // read the answer: wait for all six lines before looking at who answered what.
  const allowedIn = (id: number) => readFile(join(files.dir, `worker-${id}.log`), 'utf8').then((text) => text
    .split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['msg'] === 'request allowed').map((l) => String(l['uid'])));
  let answeredBy: string[][] = [];
  await eventually(async () => {
    answeredBy = await Promise.all([1, 2].map(allowedIn));
    return answeredBy.flat().length >= uids.length;
  }, 10_000, 'a "request allowed" line for each of the six reviews');
  assert.ok(answeredBy.every((served) => served.length > 0), `both workers answered: ${JSON.stringify(answeredBy)}`);
  assert.deepEqual(answeredBy.flat().sort(), uids.sort());

  for (let i = 0; i < 2; i++) {
    const metrics = (await get('/metrics')).body;
    assert.equal(sumSamples(metrics, 'voe_webhook_requests_total', { webhook: 'pvc-resize', decision: 'allowed' }), 6, 'both workers\' answers, from either');
    const notAfter = Date.parse(new X509Certificate(await readFile(files.certFile)).validTo) / 1000;
    assert.equal(sumSamples(metrics, 'voe_webhook_certificate_expiry_timestamp_seconds'), notAfter, 'the certificate\'s expiry, not the sum over workers');
  }
  assert.equal(sumSamples(await pool.metricsText(), 'voe_webhook_requests_total', { webhook: 'pvc-resize' }), 6);

  const pids = [...pool.pids];
  await pool.stop();
  assert.deepEqual(pids.filter(alive), [], 'every worker exited');
  await assert.rejects(get('/livez'), /ECONNREFUSED/);
});

test('a worker that cannot start fails the start-up with WEBHOOK_WORKER_FAILED naming it and its error; no worker is left', async (t) => {
  const exits: Array<{ code: number | null; signal: string | null }> = [];
  const onExit = (_worker: unknown, code: number | null, signal: string | null): void => { exits.push({ code, signal }); };
  cluster.on('exit', onExit);
  t.after(() => cluster.off('exit', onExit));
  await assert.rejects(startPool(t, { env: { POOL_WORKER_FAIL: '1' } }), (error: unknown) => {
    assert.ok(error instanceof WebhookError);
    assert.equal(error.code, 'WEBHOOK_WORKER_FAILED');
    assert.match(error.message, /^Webhook worker \d+ \(pid \d+\) could not start: WEBHOOK_API_FAILED: Cannot start watching the cluster at https:\/\/127\.0\.0\.1:1/);
    return true;
  });
  assert.deepEqual(Object.keys(cluster.workers ?? {}), []);
  assert.ok(exits.some((e) => e.code === 1 && e.signal === null), `a failed worker exits 1, not 0: ${JSON.stringify(exits)}`);
});

test('a worker killed while serving is replaced: the other serves meanwhile, /readyz stays ok and names the one starting, /metrics counts the serving ones; the replacement takes connections once its caches are synced', async (t) => {
  const { pool, files, logs } = await startPool(t, { ready: true, env: { POOL_GATE_REPLACEMENTS: '1' } });
  const ca = files.ca.certificatePem;
  const port = pool.address.port;
  const get = (path: string) => httpsRequest(port, ca, { path, method: 'GET', agent: new Agent({ keepAlive: false }) });
  const [first, second] = pool.pids as [number, number];
  process.kill(first, 'SIGKILL');
  await eventually(() => logs.lines().some((l) => l['msg'] === 'webhook worker ended; replacing it (the new one serves once its caches are synced)'), 20_000, 'the end to be logged');
  const line = logs.lines().find((l) => l['msg'] === 'webhook worker ended; replacing it (the new one serves once its caches are synced)')!;
  assert.equal(line['workerPid'], first);
  assert.equal(line['signal'], 'SIGKILL');
  assert.equal(line['why'], 'was killed by SIGKILL while serving');
  const replacementPid = line['replacementPid'] as number;
  t.after(() => { if (alive(replacementPid)) process.kill(replacementPid, 'SIGKILL'); });
  assert.ok(alive(replacementPid));

  // The replacement syncs its caches before it listens: every connection meanwhile reaches the other worker.
  await eventually(async () => /^ok; webhook workers not serving: worker \d+ \(pid \d+\) starting, replacing worker \d+ \(pid \d+\)$/.test((await get('/readyz')).body), 20_000, '/readyz to name the replacement');
  for (let i = 0; i < 4; i++) {
    const readyz = await get('/readyz');
    assert.equal(readyz.status, 200, readyz.body);
    assert.equal(readyz.body, `ok; webhook workers not serving: worker ${line['replacement']} (pid ${replacementPid}) starting, replacing worker ${line['worker']} (pid ${first})`);
    const review = await httpsRequest(port, ca, { path: '/validate/pvc-resize', body: JSON.stringify(pvcReview(`meanwhile-${i}`)), agent: new Agent({ keepAlive: false }) });
    assert.deepEqual((review.json() as { response: unknown }).response, { uid: `meanwhile-${i}`, allowed: true });
  }
  assert.deepEqual(pool.pids, [second]);
  assert.deepEqual(pool.caches(), { ready: true, unsynced: [], notServed: [], notServing: [`worker ${line['replacement']} (pid ${replacementPid}) starting, replacing worker ${line['worker']} (pid ${first})`] });
  const metrics = (await get('/metrics')).body;
  assert.equal(sumSamples(metrics, 'voe_webhook_workers', { state: 'serving' }), 1);
  assert.equal(sumSamples(metrics, 'voe_webhook_workers', { state: 'starting' }), 1);
  assert.equal(sumSamples(metrics, 'voe_webhook_requests_total', { webhook: 'pvc-resize' }), 4, 'the serving worker\'s answers');

  await writeFile(join(files.dir, 'replacement-ready'), '');
  await eventually(() => logs.lines().some((l) => l['msg'] === 'webhook worker replaced: the new one serves (its caches are synced)' && l['workerPid'] === replacementPid && l['replacedPid'] === first), START_MS, 'the replacement to serve');
  assert.deepEqual([...pool.pids].sort(), [second, replacementPid].sort());
  await eventually(async () => (await get('/readyz')).body === 'ok', 20_000, '/readyz plain ok again');
  assert.equal(sumSamples(await pool.metricsText(), 'voe_webhook_workers', { state: 'serving' }), 2);
  // Both serve again: new connections reach the replacement too.
  const answeredBy = new Set<number>();
  await eventually(async () => {
    const review = await httpsRequest(port, ca, { path: '/validate/pvc-resize', body: JSON.stringify(pvcReview('after')), agent: new Agent({ keepAlive: false }) });
    assert.equal(review.status, 200);
    const log = await readFile(join(files.dir, `worker-${line['replacement']}.log`), 'utf8');
    if (log.includes('"msg":"request allowed"')) answeredBy.add(replacementPid);
    return answeredBy.has(replacementPid);
  }, 20_000, 'the replacement to answer a review');
  assert.equal(logs.lines().filter((l) => l['msg'] === 'webhook worker ended; replacing it (the new one serves once its caches are synced)').length, 1, 'one end, logged once');
  await pool.stop();
  assert.deepEqual([second, replacementPid].filter(alive), []);
});

test('a replacement is named on /readyz as starting from its start on, before it has said anything (it may take long to start on a loaded machine)', async (t) => {
  const reports = cacheReports(t);
  const { pool, files, logs } = await startPool(t, { ready: true, env: { POOL_HOLD_REPLACEMENTS: '1' } });
  const get = (path: string) => httpsRequest(pool.address.port, files.ca.certificatePem, { path, method: 'GET', agent: new Agent({ keepAlive: false }) });
  const [first] = pool.pids as [number, number];
  process.kill(first, 'SIGKILL');
  await eventually(() => logs.lines().some((l) => l['workerPid'] === first && typeof l['replacementPid'] === 'number'), 20_000, 'the end to be replaced');
  const line = logs.lines().find((l) => l['workerPid'] === first && typeof l['replacementPid'] === 'number')!;
  const replacementPid = line['replacementPid'] as number;
  t.after(() => { if (alive(replacementPid)) process.kill(replacementPid, 'SIGKILL'); });
  // Its caches do not start (replacement-started is not written yet): it reports nothing.
  const named = `ok; webhook workers not serving: worker ${line['replacement']} (pid ${replacementPid}) starting, replacing worker ${line['worker']} (pid ${first})`;
  await eventually(async () => (await get('/readyz')).body === named, 20_000, '/readyz to name the replacement');
  assert.deepEqual(reports.filter((r) => r.pid === replacementPid), [], 'the replacement has reported nothing');
  await writeFile(join(files.dir, 'replacement-started'), '');
  await eventually(() => pool.pids.includes(replacementPid), START_MS, 'the replacement to serve');
  await eventually(async () => (await get('/readyz')).body === 'ok', 20_000, '/readyz plain ok again');
  await pool.stop();
});

test('more worker ends than the restart limit within its window (a crash loop) stop the pool with WEBHOOK_WORKER_FAILED naming the last ends', async (t) => {
  const { pool, logs } = await startPool(t, { ready: true, tuning: { restartLimit: { ends: 1, windowMs: 600_000 } } });
  const [first] = pool.pids as [number];
  process.kill(first, 'SIGKILL');
  await eventually(() => pool.pids.length === 2 && !pool.pids.includes(first), START_MS, 'the first end to be replaced');
  const again = pool.pids[0]!;
  process.kill(again, 'SIGKILL');
  const ended = await pool.ended;
  assert.equal(ended.code, 'WEBHOOK_WORKER_FAILED');
  assert.match(ended.message, new RegExp(`^2 webhook workers ended within 600 s \\(more than 1: a crash loop, not replaced any more\\): ` +
    `Webhook worker \\d+ \\(pid ${first}\\) was killed by SIGKILL while serving; Webhook worker \\d+ \\(pid ${again}\\) was killed by SIGKILL while serving$`));
  assert.ok(logs.lines().some((l) => l['msg'] === 'webhook worker ended; too many ends, stopping the webhook' && l['workerPid'] === again));
  await pool.stop();
  assert.deepEqual(Object.keys(cluster.workers ?? {}), []);
});

test('aborted during start-up: WEBHOOK_START_ABORTED and no worker is left', async (t) => {
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(startPool(t, { signal: controller.signal }), (error: unknown) => error instanceof WebhookError && error.code === 'WEBHOOK_START_ABORTED');
  assert.deepEqual(Object.keys(cluster.workers ?? {}), []);
});

test('a worker that stops answering (SIGSTOP): /metrics says which worker did not send its metrics, and the heartbeat kills it; it is replaced', async (t) => {
  const { pool, logs } = await startPool(t, { ready: true, tuning: { heartbeatIntervalMs: 100, heartbeatTimeoutMs: 1_500, metricsTimeoutMs: 300 } });
  const [stuck] = pool.pids as [number];
  process.kill(stuck, 'SIGSTOP');
  t.after(() => { if (alive(stuck)) process.kill(stuck, 'SIGKILL'); });
  await assert.rejects(pool.metricsText(), (error: unknown) => error instanceof WebhookError && error.code === 'WEBHOOK_WORKER_FAILED' &&
    new RegExp(`^Webhook worker \\d+ \\(pid ${stuck}\\) did not send its metrics within 0\\.3 s; no metrics are answered rather than a partial sum\\.$`).test(error.message));
  await eventually(() => logs.lines().some((l) => l['msg'] === 'webhook worker ended; replacing it (the new one serves once its caches are synced)' && l['workerPid'] === stuck), 20_000, 'the heartbeat to kill and replace it');
  const line = logs.lines().find((l) => l['msg'] === 'webhook worker ended; replacing it (the new one serves once its caches are synced)')!;
  assert.equal(line['why'], 'did not answer for 1.5 s (its event loop is stuck or the process stopped) and was killed');
  assert.equal(alive(stuck), false);
  await eventually(() => pool.pids.length === 2, START_MS, 'the replacement to serve');
  assert.equal(sumSamples(await pool.metricsText(), 'voe_webhook_workers', { state: 'serving' }), 2);
  await pool.stop();
});

test('stop() waits for every worker and then says which had to be killed', async (t) => {
  // Long enough for the healthy worker to exit on a loaded machine: only the stopped one is killed.
  const { pool } = await startPool(t, { ready: true, tuning: { stopTimeoutMs: 5_000 } });
  const [stuck, other] = pool.pids as [number, number];
  process.kill(stuck, 'SIGSTOP');
  t.after(() => { if (alive(stuck)) process.kill(stuck, 'SIGKILL'); });
  await assert.rejects(pool.stop(), new RegExp(`^Error: Webhook worker \\d+ \\(pid ${stuck}\\) did not stop within 5 s and was killed\\.$`));
  assert.deepEqual([stuck, other].filter(alive), []);
});

test('voe_webhook_certificate_reloads_total means the same whatever the number of workers: 1 after start, +1 per change of the files', async (t) => {
  const { pool, files } = await startPool(t, { ready: true });
  const reloads = async (result: string): Promise<number> => sumSamples(await pool.metricsText(), 'voe_webhook_certificate_reloads_total', { result });
  assert.equal(await reloads('success'), 1, 'the first load, once');
  assert.equal(await reloads('failure'), 0);
  const next = await writeServingFiles();
  t.after(() => next.cleanup());
  await writeFile(files.certFile, await readFile(next.certFile));
  await writeFile(files.keyFile, await readFile(next.keyFile));
  // Both workers pick up the new pair (each logs it); then the count is 2, not 4.
  // Each worker's log file is named after its cluster id (which goes on counting over this file's pools).
  const reloaded = async (): Promise<number> => {
    const logs = (await readdir(files.dir)).filter((name) => /^worker-\d+\.log$/.test(name));
    const texts = await Promise.all(logs.map((name) => readFile(join(files.dir, name), 'utf8')));
    return texts.filter((text) => text.includes('"msg":"serving certificate reloaded"')).length;
  };
  await eventually(async () => (await reloaded()) === 2, 20_000, 'both workers to reload the certificate');
  assert.equal(await reloads('success'), 2);
});

test('/metrics includes the first process (it routes every connection) and does not add up per-process limits', async (t) => {
  const { pool } = await startPool(t, { ready: true });
  // This test is the first process of the pool: its own default metrics, as the pool reads them.
  const mine = new Registry();
  collectDefaultMetrics({ register: mine });
  const own = await mine.metrics();
  const metrics = await pool.metricsText();
  assert.ok(sumSamples(own, 'process_max_fds') > 0);
  assert.equal(sumSamples(metrics, 'process_max_fds'), sumSamples(own, 'process_max_fds'), 'the limit of a process (the workers inherit it), not the sum');
  assert.equal(sumSamples(metrics, 'process_start_time_seconds'), sumSamples(own, 'process_start_time_seconds'), 'the first process\'s start, the earliest');
  assert.ok(sumSamples(metrics, 'process_resident_memory_bytes') > sumSamples(own, 'process_resident_memory_bytes'), 'the first process\'s memory and the workers\'');
});

/** Every sample of the counters and histograms (by `# TYPE`) in Prometheus text: series (name and labels) -> value. */
function countingSeries(text: string): Map<string, number> {
  const counting = new Set([...text.matchAll(/^# TYPE (\S+) (counter|histogram)$/gm)].map((m) => m[1]!));
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const name = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(line)![0];
    if (!counting.has(name) && !counting.has(name.replace(/_(bucket|sum|count)$/, ''))) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

function assertNoneWentBack(before: Map<string, number>, after: Map<string, number>, when: string): void {
  const back = [...before].filter(([key, value]) => !((after.get(key) ?? -Infinity) >= value)).map(([key, value]) => `${key}: ${value} -> ${after.get(key)}`);
  assert.deepEqual(back, [], `no counter or histogram series goes back ${when}`);
}

const residentBytes = async (pid: number): Promise<number> => Number(/^VmRSS:\s+(\d+) kB$/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

test('a worker killed and replaced: no counter or histogram of the pool goes back (the ended worker\'s last counts stay), its memory is no longer counted', async (t) => {
  const { pool, files, logs } = await startPool(t, { ready: true, env: { POOL_GATE_REPLACEMENTS: '1' } });
  const ca = files.ca.certificatePem;
  const port = pool.address.port;
  for (let i = 0; i < 6; i++) {
    const review = await httpsRequest(port, ca, { path: '/validate/pvc-resize', body: JSON.stringify(pvcReview(`before-${i}`)), agent: new Agent({ keepAlive: false }) });
    assert.equal(review.status, 200);
  }
  const [victim] = pool.pids as [number];
  const victimMemory = await residentBytes(victim);
  const firstText = await pool.metricsText();
  const first = countingSeries(firstText);
  assert.equal(sumSamples(firstText, 'voe_webhook_requests_total', { webhook: 'pvc-resize' }), 6);
  assert.ok(first.size > 0);

  process.kill(victim, 'SIGKILL');
  await eventually(() => logs.lines().some((l) => l['msg'] === 'webhook worker ended; replacing it (the new one serves once its caches are synced)' && l['workerPid'] === victim), 20_000, 'the end to be logged');
  const replacementPid = logs.lines().find((l) => l['workerPid'] === victim && typeof l['replacementPid'] === 'number')!['replacementPid'] as number;
  t.after(() => { if (alive(replacementPid)) process.kill(replacementPid, 'SIGKILL'); });

  // The replacement syncs its caches (gated): the pool counts the one serving worker, the first process and what the killed one counted.
  const secondText = await pool.metricsText();
  assert.equal(sumSamples(secondText, 'voe_webhook_workers', { state: 'serving' }), 1);
  assertNoneWentBack(first, countingSeries(secondText), 'when a worker ends');
  assert.equal(sumSamples(secondText, 'voe_webhook_requests_total', { webhook: 'pvc-resize' }), 6, 'both workers\' answers, the killed one\'s too');
  assert.equal(sumSamples(secondText, 'voe_webhook_request_duration_seconds_count', { webhook: 'pvc-resize' }), 6);
  assert.ok(sumSamples(secondText, 'process_resident_memory_bytes') < sumSamples(firstText, 'process_resident_memory_bytes') - victimMemory / 2,
    'a gauge: the killed worker\'s memory is gone');

  await writeFile(join(files.dir, 'replacement-ready'), '');
  await eventually(() => pool.pids.includes(replacementPid), START_MS, 'the replacement to serve');
  const review = await httpsRequest(port, ca, { path: '/validate/pvc-resize', body: JSON.stringify(pvcReview('after')), agent: new Agent({ keepAlive: false }) });
  assert.equal(review.status, 200);
  const thirdText = await pool.metricsText();
  assert.equal(sumSamples(thirdText, 'voe_webhook_workers', { state: 'serving' }), 2);
  assertNoneWentBack(countingSeries(secondText), countingSeries(thirdText), 'when the replacement serves (from 0)');
  assert.equal(sumSamples(thirdText, 'voe_webhook_requests_total', { webhook: 'pvc-resize' }), 7);
  await pool.stop();
});

test('a replacement whose caches never sync is killed once the replacement timeout passes, saying what it waited for; it counts as an end (the crash-loop limit applies)', async (t) => {
  // Its caches never sync (replacement-ready is never written). Its timeout (4 s) passes no sooner
  // than the pool has its cache state, however long it takes to start, so the reason can name them.
  const clock = new DeferredClock();
  const reports = cacheReports(t);
  const { pool, logs } = await startPool(t, { ready: true, env: { POOL_GATE_REPLACEMENTS: '1' }, clock, tuning: { replacementTimeoutMs: 4_000, restartLimit: { ends: 1, windowMs: 600_000 } } });
  const [first, second] = pool.pids as [number, number];
  clock.hold();
  process.kill(first, 'SIGKILL');
  await eventually(() => logs.lines().some((l) => l['workerPid'] === first && typeof l['replacementPid'] === 'number'), 20_000, 'the end to be replaced');
  const replacementPid = logs.lines().find((l) => l['workerPid'] === first && typeof l['replacementPid'] === 'number')!['replacementPid'] as number;
  t.after(() => { if (alive(replacementPid)) process.kill(replacementPid, 'SIGKILL'); });
  assert.equal(sumSamples(await pool.metricsText(), 'voe_webhook_workers', { state: 'starting' }), 1);
  await eventually(() => reports.some((r) => r.pid === replacementPid && r.unsynced.includes('replacement.example')), START_MS, 'the replacement to report its caches');
  clock.release();

  const ended = await pool.ended;
  assert.equal(ended.code, 'WEBHOOK_WORKER_FAILED');
  assert.match(ended.message, new RegExp(`^2 webhook workers ended within 600 s \\(more than 1: a crash loop, not replaced any more\\): ` +
    `Webhook worker \\d+ \\(pid ${first}\\) was killed by SIGKILL while serving; ` +
    `Webhook worker \\d+ \\(pid ${replacementPid}\\) did not start serving within 4 s \\(waiting for its caches to sync: replacement\\.example not synced\\) and was killed$`));
  const killing = logs.lines().find((l) => l['msg'] === 'webhook replacement worker did not start serving within 4 s; killing it');
  assert.equal(killing?.['workerPid'], replacementPid);
  assert.equal(killing?.['waitingFor'], 'waiting for its caches to sync: replacement.example not synced');
  assert.equal(alive(replacementPid), false);
  assert.deepEqual(pool.pids, [second], 'the other worker went on serving');
  await pool.stop();
});

test('a replacement that does not start serving in time is killed and replaced again, like any end', async (t) => {
  const clock = new DeferredClock();
  const { pool, files, logs } = await startPool(t, { ready: true, env: { POOL_GATE_REPLACEMENTS: '1' }, clock, tuning: { replacementTimeoutMs: 4_000 } });
  const [first] = pool.pids as [number];
  clock.hold();
  process.kill(first, 'SIGKILL');
  const replacedBy = (pid: number): number | undefined => logs.lines().find((l) => l['workerPid'] === pid && typeof l['replacementPid'] === 'number')?.['replacementPid'] as number | undefined;
  await eventually(() => replacedBy(first) !== undefined, 20_000, 'the end to be replaced');
  const late = replacedBy(first)!;
  t.after(() => { if (alive(late)) process.kill(late, 'SIGKILL'); });
  // Its timeout passes (4 s after its start); the next replacement's only once this test says so,
  // so that one serves however long it takes to start.
  clock.release();
  clock.hold();
  await eventually(() => replacedBy(late) !== undefined, 20_000, 'the late replacement to be killed and replaced');
  const again = replacedBy(late)!;
  t.after(() => { if (alive(again)) process.kill(again, 'SIGKILL'); });
  assert.match(String(logs.lines().find((l) => l['workerPid'] === late && l['replacementPid'] === again)?.['why']), /^did not start serving within 4 s \(/);
  assert.equal(clock.heldTimers, 1, 'the next replacement has its own timeout');
  // Its caches sync now: it serves, and its timeout is cleared.
  await writeFile(join(files.dir, 'replacement-ready'), '');
  await eventually(() => pool.pids.includes(again), START_MS, 'the second replacement to serve');
  assert.equal(pool.pids.length, 2);
  assert.equal(clock.heldTimers, 0, 'a replacement that serves is not killed for its timeout any more');
  clock.release();
  await pool.stop();
});
