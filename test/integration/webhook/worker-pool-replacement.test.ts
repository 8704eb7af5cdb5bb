import cluster from 'node:cluster';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { sumSamples, WebhookError } from '../../../src/webhook/index.js';
import { eventually } from '../../support/held-clock.js';
import { alive, cacheReports, START_MS, startTestPool } from '../../support/start-test-pool.js';
import { httpsRequest, pvcReview } from '../../support/webhook-client.js';

// startWorkerPool: a worker that ends (killed, hung) while the pool serves is replaced.

test('a worker killed while serving is replaced: the other serves meanwhile, /readyz stays ok and names the one starting, /metrics counts the serving ones; the replacement takes connections once its caches are synced', async (t) => {
  const { pool, files, logs } = await startTestPool(t, {
    ready: true,
    env: { POOL_GATE_REPLACEMENTS: '1' },
  });
  const ca = files.ca.certificatePem;
  const port = pool.address.port;
  const get = (path: string) =>
    httpsRequest(port, ca, { path, method: 'GET', agent: new Agent({ keepAlive: false }) });
  const [first, second] = pool.pids as [number, number];
  process.kill(first, 'SIGKILL');
  await eventually(
    () =>
      logs
        .lines()
        .some(
          (l) =>
            l['msg'] ===
            'webhook worker ended; replacing it (the new one serves once its caches are synced)',
        ),
    20_000,
    'the end to be logged',
  );
  const line = logs
    .lines()
    .find(
      (l) =>
        l['msg'] ===
        'webhook worker ended; replacing it (the new one serves once its caches are synced)',
    )!;
  assert.equal(line['workerPid'], first);
  assert.equal(line['signal'], 'SIGKILL');
  assert.equal(line['why'], 'was killed by SIGKILL while serving');
  const replacementPid = line['replacementPid'] as number;
  t.after(() => {
    if (alive(replacementPid)) process.kill(replacementPid, 'SIGKILL');
  });
  assert.ok(alive(replacementPid));

  // The replacement syncs its caches before it listens: every connection meanwhile reaches the other worker.
  await eventually(
    async () =>
      /^ok; webhook workers not serving: worker \d+ \(pid \d+\) starting, replacing worker \d+ \(pid \d+\)$/.test(
        (await get('/readyz')).body,
      ),
    20_000,
    '/readyz to name the replacement',
  );
  for (let i = 0; i < 4; i++) {
    const readyz = await get('/readyz');
    assert.equal(readyz.status, 200, readyz.body);
    assert.equal(
      readyz.body,
      `ok; webhook workers not serving: worker ${line['replacement']} (pid ${replacementPid}) starting, replacing worker ${line['worker']} (pid ${first})`,
    );
    const review = await httpsRequest(port, ca, {
      path: '/validate/pvc-resize',
      body: JSON.stringify(pvcReview(`meanwhile-${i}`)),
      agent: new Agent({ keepAlive: false }),
    });
    assert.deepEqual((review.json() as { response: unknown }).response, {
      uid: `meanwhile-${i}`,
      allowed: true,
    });
  }
  assert.deepEqual(pool.pids, [second]);
  assert.deepEqual(pool.caches(), {
    ready: true,
    unsynced: [],
    notServed: [],
    notServing: [
      `worker ${line['replacement']} (pid ${replacementPid}) starting, replacing worker ${line['worker']} (pid ${first})`,
    ],
  });
  const metrics = (await get('/metrics')).body;
  assert.equal(sumSamples(metrics, 'voe_webhook_workers', { state: 'serving' }), 1);
  assert.equal(sumSamples(metrics, 'voe_webhook_workers', { state: 'starting' }), 1);
  assert.equal(
    sumSamples(metrics, 'voe_webhook_requests_total', { webhook: 'pvc-resize' }),
    4,
    "the serving worker's answers",
  );

  await writeFile(join(files.dir, 'replacement-ready'), '');
  await eventually(
    () =>
      logs
        .lines()
        .some(
          (l) =>
            l['msg'] === 'webhook worker replaced: the new one serves (its caches are synced)' &&
            l['workerPid'] === replacementPid &&
            l['replacedPid'] === first,
        ),
    START_MS,
    'the replacement to serve',
  );
  assert.deepEqual([...pool.pids].sort(), [second, replacementPid].sort());
  await eventually(
    async () => (await get('/readyz')).body === 'ok',
    20_000,
    '/readyz plain ok again',
  );
  assert.equal(
    sumSamples(await pool.metricsText(), 'voe_webhook_workers', { state: 'serving' }),
    2,
  );
  // Both serve again: new connections reach the replacement too.
  const answeredBy = new Set<number>();
  await eventually(
    async () => {
      const review = await httpsRequest(port, ca, {
        path: '/validate/pvc-resize',
        body: JSON.stringify(pvcReview('after')),
        agent: new Agent({ keepAlive: false }),
      });
      assert.equal(review.status, 200);
      const log = await readFile(join(files.dir, `worker-${line['replacement']}.log`), 'utf8');
      if (log.includes('"msg":"request allowed"')) answeredBy.add(replacementPid);
      return answeredBy.has(replacementPid);
    },
    20_000,
    'the replacement to answer a review',
  );
  assert.equal(
    logs
      .lines()
      .filter(
        (l) =>
          l['msg'] ===
          'webhook worker ended; replacing it (the new one serves once its caches are synced)',
      ).length,
    1,
    'one end, logged once',
  );
  await pool.stop();
  assert.deepEqual([second, replacementPid].filter(alive), []);
});

test('a replacement is named on /readyz as starting from its start on, before it has said anything (it may take long to start on a loaded machine)', async (t) => {
  const reports = cacheReports(t);
  const { pool, files, logs } = await startTestPool(t, {
    ready: true,
    env: { POOL_HOLD_REPLACEMENTS: '1' },
  });
  const get = (path: string) =>
    httpsRequest(pool.address.port, files.ca.certificatePem, {
      path,
      method: 'GET',
      agent: new Agent({ keepAlive: false }),
    });
  const [first] = pool.pids as [number, number];
  process.kill(first, 'SIGKILL');
  await eventually(
    () =>
      logs.lines().some((l) => l['workerPid'] === first && typeof l['replacementPid'] === 'number'),
    20_000,
    'the end to be replaced',
  );
  const line = logs
    .lines()
    .find((l) => l['workerPid'] === first && typeof l['replacementPid'] === 'number')!;
  const replacementPid = line['replacementPid'] as number;
  t.after(() => {
    if (alive(replacementPid)) process.kill(replacementPid, 'SIGKILL');
  });
  // Its caches do not start (replacement-started is not written yet): it reports nothing.
  const named = `ok; webhook workers not serving: worker ${line['replacement']} (pid ${replacementPid}) starting, replacing worker ${line['worker']} (pid ${first})`;
  await eventually(
    async () => (await get('/readyz')).body === named,
    20_000,
    '/readyz to name the replacement',
  );
  assert.deepEqual(
    reports.filter((r) => r.pid === replacementPid),
    [],
    'the replacement has reported nothing',
  );
  await writeFile(join(files.dir, 'replacement-started'), '');
  await eventually(() => pool.pids.includes(replacementPid), START_MS, 'the replacement to serve');
  await eventually(
    async () => (await get('/readyz')).body === 'ok',
    20_000,
    '/readyz plain ok again',
  );
  await pool.stop();
});

test('a worker that stops answering (SIGSTOP): /metrics says which worker did not send its metrics, and the heartbeat kills it; it is replaced', async (t) => {
  const { pool, logs } = await startTestPool(t, {
    ready: true,
    tuning: { heartbeatIntervalMs: 100, heartbeatTimeoutMs: 1_500, metricsTimeoutMs: 300 },
  });
  const [stuck] = pool.pids as [number];
  process.kill(stuck, 'SIGSTOP');
  t.after(() => {
    if (alive(stuck)) process.kill(stuck, 'SIGKILL');
  });
  await assert.rejects(
    pool.metricsText(),
    (error: unknown) =>
      error instanceof WebhookError &&
      error.code === 'WEBHOOK_WORKER_FAILED' &&
      new RegExp(
        `^Webhook worker \\d+ \\(pid ${stuck}\\) did not send its metrics within 0\\.3 s; no metrics are answered rather than a partial sum\\.$`,
      ).test(error.message),
  );
  await eventually(
    () =>
      logs
        .lines()
        .some(
          (l) =>
            l['msg'] ===
              'webhook worker ended; replacing it (the new one serves once its caches are synced)' &&
            l['workerPid'] === stuck,
        ),
    20_000,
    'the heartbeat to kill and replace it',
  );
  const line = logs
    .lines()
    .find(
      (l) =>
        l['msg'] ===
        'webhook worker ended; replacing it (the new one serves once its caches are synced)',
    )!;
  assert.equal(
    line['why'],
    'did not answer for 1.5 s (its event loop is stuck or the process stopped) and was killed',
  );
  assert.equal(alive(stuck), false);
  await eventually(() => pool.pids.length === 2, START_MS, 'the replacement to serve');
  assert.equal(
    sumSamples(await pool.metricsText(), 'voe_webhook_workers', { state: 'serving' }),
    2,
  );
  await pool.stop();
});

test('a hung worker that takes long to die once killed (stuck in uninterruptible I/O) is killed and logged once, not again at every heartbeat until its exit is seen', async (t) => {
  const { pool, logs } = await startTestPool(t, {
    ready: true,
    tuning: { heartbeatIntervalMs: 100, heartbeatTimeoutMs: 1_000 },
  });
  const [stuck] = pool.pids as [number];
  const worker = Object.values(cluster.workers ?? {}).find((w) => w?.process.pid === stuck)!;
  // The kill lands 1.5 s (15 heartbeats) after it is sent, as for a process in the D state.
  const kills: Array<NodeJS.Signals | number | undefined> = [];
  const kill = worker.process.kill.bind(worker.process);
  worker.process.kill = (signal?: NodeJS.Signals | number): boolean => {
    kills.push(signal);
    setTimeout(() => kill(signal), 1_500);
    return true;
  };
  process.kill(stuck, 'SIGSTOP');
  t.after(() => {
    if (alive(stuck)) process.kill(stuck, 'SIGKILL');
  });
  await eventually(
    () =>
      logs
        .lines()
        .some(
          (l) =>
            l['msg'] ===
              'webhook worker ended; replacing it (the new one serves once its caches are synced)' &&
            l['workerPid'] === stuck,
        ),
    20_000,
    'the heartbeat to kill and replace it',
  );
  assert.deepEqual(kills, ['SIGKILL']);
  assert.equal(
    logs
      .lines()
      .filter(
        (l) =>
          l['msg'] === 'webhook worker does not answer; killing it' && l['workerPid'] === stuck,
      ).length,
    1,
  );
  await eventually(() => pool.pids.length === 2, START_MS, 'the replacement to serve');
});

test('the first process stalled for longer than the heartbeat timeout (its event loop blocked: frozen, starved of CPU) kills no worker that answers: their answers waited unread', async (t) => {
  const { pool, logs } = await startTestPool(t, {
    ready: true,
    tuning: { heartbeatIntervalMs: 100, heartbeatTimeoutMs: 5_000 },
  });
  const pids = [...pool.pids];
  assert.equal(
    sumSamples(await pool.metricsText(), 'voe_webhook_workers', { state: 'serving' }),
    2,
    'both answer',
  );
  const until = Date.now() + 6_000;
  while (Date.now() < until) {
    /* this process, the pool's first, runs nothing else meanwhile */
  }
  // The heartbeat due meanwhile runs first, before the answers waiting in the channels are read.
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(
    logs.lines().filter((l) => l['msg'] === 'webhook worker does not answer; killing it'),
    [],
  );
  assert.deepEqual(pids.filter(alive), pids);
  assert.deepEqual(pool.pids, pids);
  assert.equal(
    sumSamples(await pool.metricsText(), 'voe_webhook_workers', { state: 'serving' }),
    2,
    'both answer still',
  );
});

/** Every sample of the counters and histograms (by `# TYPE`) in Prometheus text: series (name and labels) -> value. */
function countingSeries(text: string): Map<string, number> {
  const counting = new Set(
    [...text.matchAll(/^# TYPE (\S+) (counter|histogram)$/gm)].map((m) => m[1]!),
  );
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

function assertNoneWentBack(
  before: Map<string, number>,
  after: Map<string, number>,
  when: string,
): void {
  const back = [...before]
    .filter(([key, value]) => !((after.get(key) ?? -Infinity) >= value))
    .map(([key, value]) => `${key}: ${value} -> ${after.get(key)}`);
  assert.deepEqual(back, [], `no counter or histogram series goes back ${when}`);
}

const residentBytes = async (pid: number): Promise<number> =>
  Number(/^VmRSS:\s+(\d+) kB$/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

test("a worker killed and replaced: no counter or histogram of the pool goes back (the ended worker's last counts stay), its memory is no longer counted", async (t) => {
  const { pool, files, logs } = await startTestPool(t, {
    ready: true,
    env: { POOL_GATE_REPLACEMENTS: '1' },
  });
  const ca = files.ca.certificatePem;
  const port = pool.address.port;
  for (let i = 0; i < 6; i++) {
    const review = await httpsRequest(port, ca, {
      path: '/validate/pvc-resize',
      body: JSON.stringify(pvcReview(`before-${i}`)),
      agent: new Agent({ keepAlive: false }),
    });
    assert.equal(review.status, 200);
  }
  const [victim] = pool.pids as [number];
  const victimMemory = await residentBytes(victim);
  const firstText = await pool.metricsText();
  const first = countingSeries(firstText);
  assert.equal(sumSamples(firstText, 'voe_webhook_requests_total', { webhook: 'pvc-resize' }), 6);
  assert.ok(first.size > 0);

  process.kill(victim, 'SIGKILL');
  await eventually(
    () =>
      logs
        .lines()
        .some(
          (l) =>
            l['msg'] ===
              'webhook worker ended; replacing it (the new one serves once its caches are synced)' &&
            l['workerPid'] === victim,
        ),
    20_000,
    'the end to be logged',
  );
  const replacementPid = logs
    .lines()
    .find((l) => l['workerPid'] === victim && typeof l['replacementPid'] === 'number')![
    'replacementPid'
  ] as number;
  t.after(() => {
    if (alive(replacementPid)) process.kill(replacementPid, 'SIGKILL');
  });

  // The replacement syncs its caches (gated): the pool counts the one serving worker, the first process and what the killed one counted.
  const secondText = await pool.metricsText();
  assert.equal(sumSamples(secondText, 'voe_webhook_workers', { state: 'serving' }), 1);
  assertNoneWentBack(first, countingSeries(secondText), 'when a worker ends');
  assert.equal(
    sumSamples(secondText, 'voe_webhook_requests_total', { webhook: 'pvc-resize' }),
    6,
    "both workers' answers, the killed one's too",
  );
  assert.equal(
    sumSamples(secondText, 'voe_webhook_request_duration_seconds_count', { webhook: 'pvc-resize' }),
    6,
  );
  assert.ok(
    sumSamples(secondText, 'process_resident_memory_bytes') <
      sumSamples(firstText, 'process_resident_memory_bytes') - victimMemory / 2,
    "a gauge: the killed worker's memory is gone",
  );

  await writeFile(join(files.dir, 'replacement-ready'), '');
  await eventually(() => pool.pids.includes(replacementPid), START_MS, 'the replacement to serve');
  const review = await httpsRequest(port, ca, {
    path: '/validate/pvc-resize',
    body: JSON.stringify(pvcReview('after')),
    agent: new Agent({ keepAlive: false }),
  });
  assert.equal(review.status, 200);
  const thirdText = await pool.metricsText();
  assert.equal(sumSamples(thirdText, 'voe_webhook_workers', { state: 'serving' }), 2);
  assertNoneWentBack(
    countingSeries(secondText),
    countingSeries(thirdText),
    'when the replacement serves (from 0)',
  );
  assert.equal(sumSamples(thirdText, 'voe_webhook_requests_total', { webhook: 'pvc-resize' }), 7);
  await pool.stop();
});
