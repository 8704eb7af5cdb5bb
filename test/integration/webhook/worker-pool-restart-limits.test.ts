import { test } from 'node:test';
import assert from 'node:assert/strict';
import cluster from 'node:cluster';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sumSamples } from '../../../src/webhook/index.js';
import { DeferredClock } from '../../support/deferred-clock.js';
import { eventually } from '../../support/held-clock.js';
import { alive, cacheReports, START_MS, startTestPool } from '../../support/start-test-pool.js';

// startWorkerPool: how ends are limited: the crash-loop limit and the replacement timeout.

/** The pid of the worker the pool logged it started in place of `pid`, if it has. */
function replacementOf(
  logs: { lines: () => Array<Record<string, unknown>> },
  pid: number,
): number | undefined {
  return logs
    .lines()
    .find((l) => l['workerPid'] === pid && typeof l['replacementPid'] === 'number')?.[
    'replacementPid'
  ] as number | undefined;
}

test('more worker ends than the restart limit within its window (a crash loop) stop the pool with WEBHOOK_WORKER_FAILED naming the last ends', async (t) => {
  const { pool, logs } = await startTestPool(t, {
    ready: true,
    tuning: { restartLimit: { ends: 1, windowMs: 600_000 } },
  });
  const [first] = pool.pids as [number];
  process.kill(first, 'SIGKILL');
  await eventually(
    () => pool.pids.length === 2 && !pool.pids.includes(first),
    START_MS,
    'the first end to be replaced',
  );
  const again = pool.pids[0]!;
  process.kill(again, 'SIGKILL');
  const ended = await pool.ended;
  assert.equal(ended.code, 'WEBHOOK_WORKER_FAILED');
  assert.match(
    ended.message,
    new RegExp(
      `^2 webhook workers ended within 600 s \\(more than 1: a crash loop, not replaced any more\\): ` +
        `Webhook worker \\d+ \\(pid ${first}\\) was killed by SIGKILL while serving; Webhook worker \\d+ \\(pid ${again}\\) was killed by SIGKILL while serving$`,
    ),
  );
  assert.ok(
    logs
      .lines()
      .some(
        (l) =>
          l['msg'] === 'webhook worker ended; too many ends, stopping the webhook' &&
          l['workerPid'] === again,
      ),
  );
  await pool.stop();
  assert.deepEqual(Object.keys(cluster.workers ?? {}), []);
});

test('a replacement whose caches never sync is killed once the replacement timeout passes, saying what it waited for; it counts as an end (the crash-loop limit applies)', async (t) => {
  // Its caches never sync (replacement-ready is never written). Its timeout (4 s) passes no sooner
  // than the pool has its cache state, however long it takes to start, so the reason can name them.
  const clock = new DeferredClock();
  const reports = cacheReports(t);
  const { pool, logs } = await startTestPool(t, {
    ready: true,
    env: { POOL_GATE_REPLACEMENTS: '1' },
    clock,
    tuning: { replacementTimeoutMs: 4_000, restartLimit: { ends: 1, windowMs: 600_000 } },
  });
  const [first, second] = pool.pids as [number, number];
  clock.hold();
  process.kill(first, 'SIGKILL');
  await eventually(
    () =>
      logs.lines().some((l) => l['workerPid'] === first && typeof l['replacementPid'] === 'number'),
    20_000,
    'the end to be replaced',
  );
  const replacementPid = logs
    .lines()
    .find((l) => l['workerPid'] === first && typeof l['replacementPid'] === 'number')![
    'replacementPid'
  ] as number;
  t.after(() => {
    if (alive(replacementPid)) process.kill(replacementPid, 'SIGKILL');
  });
  assert.equal(
    sumSamples(await pool.metricsText(), 'voe_webhook_workers', { state: 'starting' }),
    1,
  );
  await eventually(
    () =>
      reports.some((r) => r.pid === replacementPid && r.unsynced.includes('replacement.example')),
    START_MS,
    'the replacement to report its caches',
  );
  clock.release();

  const ended = await pool.ended;
  assert.equal(ended.code, 'WEBHOOK_WORKER_FAILED');
  assert.match(
    ended.message,
    new RegExp(
      `^2 webhook workers ended within 600 s \\(more than 1: a crash loop, not replaced any more\\): ` +
        `Webhook worker \\d+ \\(pid ${first}\\) was killed by SIGKILL while serving; ` +
        `Webhook worker \\d+ \\(pid ${replacementPid}\\) did not start serving within 4 s \\(waiting for its caches to sync: replacement\\.example not synced\\) and was killed$`,
    ),
  );
  const killing = logs
    .lines()
    .find(
      (l) => l['msg'] === 'webhook replacement worker did not start serving within 4 s; killing it',
    );
  assert.equal(killing?.['workerPid'], replacementPid);
  assert.equal(
    killing?.['waitingFor'],
    'waiting for its caches to sync: replacement.example not synced',
  );
  assert.equal(alive(replacementPid), false);
  assert.deepEqual(pool.pids, [second], 'the other worker went on serving');
  await pool.stop();
});

test('a replacement that does not start serving in time is killed and replaced again, like any end (here with no backoff)', async (t) => {
  const clock = new DeferredClock();
  const { pool, files, logs } = await startTestPool(t, {
    ready: true,
    env: { POOL_GATE_REPLACEMENTS: '1' },
    clock,
    tuning: { replacementTimeoutMs: 4_000, replacementBackoff: { initialMs: 0, maxMs: 0 } },
  });
  const [first] = pool.pids as [number];
  clock.hold();
  process.kill(first, 'SIGKILL');
  const replacedBy = (pid: number): number | undefined => replacementOf(logs, pid);
  await eventually(() => replacedBy(first) !== undefined, 20_000, 'the end to be replaced');
  const late = replacedBy(first)!;
  t.after(() => {
    if (alive(late)) process.kill(late, 'SIGKILL');
  });
  // Its timeout passes (4 s after its start); the next replacement's only once this test says so,
  // so that one serves however long it takes to start.
  clock.release();
  clock.hold();
  await eventually(
    () => replacedBy(late) !== undefined,
    20_000,
    'the late replacement to be killed and replaced',
  );
  const again = replacedBy(late)!;
  t.after(() => {
    if (alive(again)) process.kill(again, 'SIGKILL');
  });
  assert.match(
    String(
      logs.lines().find((l) => l['workerPid'] === late && l['replacementPid'] === again)?.['why'],
    ),
    /^did not start serving within 4 s \(/,
  );
  assert.equal(clock.heldTimers, 1, 'the next replacement has its own timeout');
  // Its caches sync now: it serves, and its timeout is cleared.
  await writeFile(join(files.dir, 'replacement-ready'), '');
  await eventually(() => pool.pids.includes(again), START_MS, 'the second replacement to serve');
  assert.equal(pool.pids.length, 2);
  assert.equal(
    clock.heldTimers,
    0,
    'a replacement that serves is not killed for its timeout any more',
  );
  clock.release();
  await pool.stop();
});

test('after a replacement that did not serve, the next one starts only after a backoff that doubles up to its cap, and from the start again once one serves; /readyz names the one waiting', async (t) => {
  const clock = new DeferredClock();
  const { pool, files, logs } = await startTestPool(t, {
    ready: true,
    env: { POOL_GATE_REPLACEMENTS: '1' },
    clock,
    tuning: {
      replacementTimeoutMs: 3_000,
      replacementBackoff: { initialMs: 2_000, maxMs: 3_000 },
      restartLimit: { ends: 10, windowMs: 600_000 },
    },
  });
  const replacedBy = (pid: number): number | undefined => replacementOf(logs, pid);
  const waited = (pid: number): Record<string, unknown> | undefined =>
    logs.lines().find((l) => l['workerPid'] === pid && typeof l['nextTryInMs'] === 'number');
  const replacements: number[] = [];
  t.after(() => {
    for (const pid of replacements) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  const [first] = pool.pids as [number];
  process.kill(first, 'SIGKILL');
  // Ended while serving: replaced at once, without waiting.
  await eventually(
    () => replacedBy(first) !== undefined,
    20_000,
    'the serving worker to be replaced',
  );
  assert.equal(waited(first), undefined);
  const r1 = replacedBy(first)!;
  replacements.push(r1);

  // Its caches never sync: killed after 3 s; the next one waits 2 s, then 3 s (the cap, not 4 s).
  await eventually(
    () => waited(r1) !== undefined,
    30_000,
    'the first replacement to end before it served',
  );
  assert.equal(waited(r1)!['nextTryInMs'], 2_000);
  assert.equal(
    waited(r1)!['msg'],
    'webhook replacement worker ended before it served; the next one starts in 2 s',
  );
  assert.match(String(waited(r1)!['why']), /^did not start serving within 3 s \(/);
  const readyz = await pool.caches();
  assert.ok(
    readyz.notServing?.some((text) =>
      /^a replacement of Webhook worker \d+ \(pid \d+\) starts in 2 s \(the last replacement did not serve\)$/.test(
        text,
      ),
    ),
    JSON.stringify(readyz),
  );
  await eventually(() => replacedBy(r1) !== undefined, 20_000, 'the second replacement to start');
  const r2 = replacedBy(r1)!;
  replacements.push(r2);
  const started = logs.lines().find((l) => l['replacementPid'] === r2)!;
  assert.equal(
    started['msg'],
    'starting the next replacement worker (the new one serves once its caches are synced)',
  );
  assert.equal(started['level'], 40, 'a follow-up of the end logged at error');
  assert.ok(
    Number(started['time']) - Number(waited(r1)!['time']) >= 2_000,
    'it waited its backoff',
  );
  await eventually(
    () => waited(r2) !== undefined,
    30_000,
    'the second replacement to end before it served',
  );
  assert.equal(waited(r2)!['nextTryInMs'], 3_000);

  // The third may take as long as it needs to start (its timeout waits for release()); its caches sync, it serves.
  clock.hold();
  await writeFile(join(files.dir, 'replacement-ready'), '');
  await eventually(() => replacedBy(r2) !== undefined, 20_000, 'the third replacement to start');
  const r3 = replacedBy(r2)!;
  replacements.push(r3);
  await eventually(() => pool.pids.includes(r3), START_MS, 'the third replacement to serve');
  assert.equal(clock.heldTimers, 0);
  clock.release();

  // Served: the backoff starts again from its first step. Its own replacement (it ended while serving) starts at once and does not sync.
  await rm(join(files.dir, 'replacement-ready'));
  process.kill(r3, 'SIGKILL');
  await eventually(
    () => replacedBy(r3) !== undefined,
    20_000,
    'the serving replacement to be replaced',
  );
  assert.equal(waited(r3), undefined);
  const r4 = replacedBy(r3)!;
  replacements.push(r4);
  await eventually(
    () => waited(r4) !== undefined,
    30_000,
    'the fourth replacement to end before it served',
  );
  assert.equal(waited(r4)!['nextTryInMs'], 2_000);
  await pool.stop();
});
