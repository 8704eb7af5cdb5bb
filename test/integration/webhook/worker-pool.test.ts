import { test } from 'node:test';
import assert from 'node:assert/strict';
import cluster from 'node:cluster';
import { X509Certificate } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { sumSamples, WebhookError } from '../../../src/webhook/index.js';
import { eventually } from '../../support/held-clock.js';
import { alive, startTestPool } from '../../support/start-test-pool.js';
import { httpsRequest, pvcReview, writeServingFiles } from '../../support/webhook-client.js';

// startWorkerPool with two real worker processes: start-up, serving, metrics, stop.
// A worker that ends and is replaced: worker-pool-replacement.test.ts; the restart limits:
// worker-pool-restart-limits.test.ts.

test("two workers share the port; /readyz on either says ready only when every worker's caches are synced; /metrics sums both; stop() ends them", async (t) => {
  const { pool, files, readyFile } = await startTestPool(t);
  const ca = files.ca.certificatePem;
  const port = pool.address.port;
  const get = (path: string) =>
    httpsRequest(port, ca, { path, method: 'GET', agent: new Agent({ keepAlive: false }) });
  assert.equal(pool.pids.length, 2);
  // One worker per vCPU: each runs V8's garbage collector on its own thread (no GC helper threads).
  for (const pid of pool.pids) {
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    assert.ok(argv.includes('--single-threaded-gc'), `worker ${pid} runs ${argv.join(' ')}`);
  }

  // Worker 2's caches are synced, worker 1's are not: the pool is not ready, whichever worker answers.
  await eventually(
    async () => {
      for (let i = 0; i < 4; i++) {
        const readyz = await get('/readyz');
        if (readyz.status !== 503 || !/caches not synced \(fake\.example\)/.test(readyz.body))
          return false;
      }
      return true;
    },
    20_000,
    "every /readyz 503 naming worker 1's unsynced resource",
  );
  assert.deepEqual(pool.caches(), { ready: false, unsynced: ['fake.example'], notServed: [] });

  await writeFile(readyFile, '');
  await eventually(
    async () => {
      for (let i = 0; i < 4; i++) if ((await get('/readyz')).status !== 200) return false;
      return true;
    },
    20_000,
    'every /readyz 200 once worker 1 synced',
  );
  assert.equal(pool.caches().ready, true);

  const uids = Array.from({ length: 6 }, (_, i) => `pool-${i}`);
  for (const uid of uids) {
    const review = await httpsRequest(port, ca, {
      path: '/validate/pvc-resize',
      body: JSON.stringify(pvcReview(uid)),
      agent: new Agent({ keepAlive: false }),
    });
    assert.deepEqual((review.json() as { response: unknown }).response, { uid, allowed: true });
  }
  // A worker logs an answer just after sending it, so the last line may land after the client has
  // read the answer: wait for all six lines before looking at who answered what.
  const allowedIn = (id: number) =>
    readFile(join(files.dir, `worker-${id}.log`), 'utf8').then((text) =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l['msg'] === 'request allowed')
        .map((l) => String(l['uid'])),
    );
  let answeredBy: string[][] = [];
  await eventually(
    async () => {
      answeredBy = await Promise.all([1, 2].map(allowedIn));
      return answeredBy.flat().length >= uids.length;
    },
    10_000,
    'a "request allowed" line for each of the six reviews',
  );
  assert.ok(
    answeredBy.every((served) => served.length > 0),
    `both workers answered: ${JSON.stringify(answeredBy)}`,
  );
  assert.deepEqual(answeredBy.flat().sort(), uids.sort());

  for (let i = 0; i < 2; i++) {
    const metrics = (await get('/metrics')).body;
    assert.equal(
      sumSamples(metrics, 'voe_webhook_requests_total', {
        webhook: 'pvc-resize',
        decision: 'allowed',
      }),
      6,
      "both workers' answers, from either",
    );
    const notAfter = Date.parse(new X509Certificate(await readFile(files.certFile)).validTo) / 1000;
    assert.equal(
      sumSamples(metrics, 'voe_webhook_certificate_expiry_timestamp_seconds'),
      notAfter,
      "the certificate's expiry, not the sum over workers",
    );
  }
  assert.equal(
    sumSamples(await pool.metricsText(), 'voe_webhook_requests_total', { webhook: 'pvc-resize' }),
    6,
  );

  const pids = [...pool.pids];
  await pool.stop();
  assert.deepEqual(pids.filter(alive), [], 'every worker exited');
  await assert.rejects(get('/livez'), /ECONNREFUSED/);
});

test('a worker that cannot start fails the start-up with WEBHOOK_WORKER_FAILED naming it and its error; no worker is left', async (t) => {
  const exits: Array<{ code: number | null; signal: string | null }> = [];
  const onExit = (_worker: unknown, code: number | null, signal: string | null): void => {
    exits.push({ code, signal });
  };
  cluster.on('exit', onExit);
  t.after(() => cluster.off('exit', onExit));
  await assert.rejects(startTestPool(t, { env: { POOL_WORKER_FAIL: '1' } }), (error: unknown) => {
    assert.ok(error instanceof WebhookError);
    assert.equal(error.code, 'WEBHOOK_WORKER_FAILED');
    assert.match(
      error.message,
      /^Webhook worker \d+ \(pid \d+\) could not start: WEBHOOK_API_FAILED: Cannot start watching the cluster at https:\/\/127\.0\.0\.1:1/,
    );
    return true;
  });
  assert.deepEqual(Object.keys(cluster.workers ?? {}), []);
  assert.ok(
    exits.some((e) => e.code === 1 && e.signal === null),
    `a failed worker exits 1, not 0: ${JSON.stringify(exits)}`,
  );
});

test('aborted during start-up: WEBHOOK_START_ABORTED and no worker is left', async (t) => {
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    startTestPool(t, { signal: controller.signal }),
    (error: unknown) => error instanceof WebhookError && error.code === 'WEBHOOK_START_ABORTED',
  );
  assert.deepEqual(Object.keys(cluster.workers ?? {}), []);
});

test('stop() waits for every worker and then says which had to be killed', async (t) => {
  // Long enough for the healthy worker to exit on a loaded machine: only the stopped one is killed.
  const { pool } = await startTestPool(t, { ready: true, tuning: { stopTimeoutMs: 5_000 } });
  const [stuck, other] = pool.pids as [number, number];
  process.kill(stuck, 'SIGSTOP');
  t.after(() => {
    if (alive(stuck)) process.kill(stuck, 'SIGKILL');
  });
  await assert.rejects(
    pool.stop(),
    new RegExp(
      `^Error: Webhook worker \\d+ \\(pid ${stuck}\\) did not stop within 5 s and was killed\\.$`,
    ),
  );
  assert.deepEqual([stuck, other].filter(alive), []);
});

test('voe_webhook_certificate_reloads_total means the same whatever the number of workers: 1 after start, +1 per change of the files', async (t) => {
  const { pool, files } = await startTestPool(t, { ready: true });
  const reloads = async (result: string): Promise<number> =>
    sumSamples(await pool.metricsText(), 'voe_webhook_certificate_reloads_total', { result });
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
  await eventually(
    async () => (await reloaded()) === 2,
    20_000,
    'both workers to reload the certificate',
  );
  assert.equal(await reloads('success'), 2);
});

test('/metrics includes the first process (it routes every connection) and does not add up per-process limits', async (t) => {
  const { pool } = await startTestPool(t, { ready: true });
  // This test is the first process of the pool: its own default metrics, as the pool reads them.
  const mine = new Registry();
  collectDefaultMetrics({ register: mine });
  const own = await mine.metrics();
  const metrics = await pool.metricsText();
  assert.ok(sumSamples(own, 'process_max_fds') > 0);
  assert.equal(
    sumSamples(metrics, 'process_max_fds'),
    sumSamples(own, 'process_max_fds'),
    'the limit of a process (the workers inherit it), not the sum',
  );
  assert.equal(
    sumSamples(metrics, 'process_start_time_seconds'),
    sumSamples(own, 'process_start_time_seconds'),
    "the first process's start, the earliest",
  );
  assert.ok(
    sumSamples(metrics, 'process_resident_memory_bytes') >
      sumSamples(own, 'process_resident_memory_bytes'),
    "the first process's memory and the workers'",
  );
});
