import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  aggregatePoolMetrics,
  createWebhookMetrics,
  retireWorkerMetrics,
  sumSamples,
} from '../../../src/webhook/index.js';

type WorkerMetrics = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** One worker's metrics after `requests` allowed reviews of 0.01 s each, `reloads` certificate loads and `memory` bytes resident. */
async function workerMetrics(
  requests: number,
  reloads: number,
  memory: number,
): Promise<WorkerMetrics> {
  const registry = new Registry();
  const metrics = createWebhookMetrics(registry);
  for (let i = 0; i < reloads; i++) metrics.certificateReloads.inc({ result: 'success' });
  const counter = new Counter({
    name: 'test_answers_total',
    help: 'answers',
    labelNames: ['webhook'],
    registers: [registry],
  });
  const histogram = new Histogram({
    name: 'test_duration_seconds',
    help: 'duration',
    labelNames: ['webhook'],
    buckets: [0.005, 0.1],
    registers: [registry],
  });
  const gauge = new Gauge({
    name: 'test_resident_memory_bytes',
    help: 'memory',
    registers: [registry],
  });
  for (let i = 0; i < requests; i++) {
    counter.inc({ webhook: 'pvc-resize' });
    histogram.observe({ webhook: 'pvc-resize' }, 0.01);
  }
  gauge.set(memory);
  return await registry.getMetricsAsJSON();
}

test('retired workers keep their counters and histograms in the aggregate, merged per series; their gauges are gone', async () => {
  const live = await workerMetrics(1, 1, 100);
  let retired: WorkerMetrics = [];
  retired = retireWorkerMetrics(retired, await workerMetrics(3, 2, 500));
  retired = retireWorkerMetrics(retired, await workerMetrics(4, 1, 700));
  const text = await aggregatePoolMetrics([retired, live]);
  assert.equal(
    sumSamples(text, 'test_answers_total', { webhook: 'pvc-resize' }),
    8,
    "the two ended workers' counts and the live one's",
  );
  assert.equal(sumSamples(text, 'test_duration_seconds_count', { webhook: 'pvc-resize' }), 8);
  assert.equal(
    sumSamples(text, 'test_duration_seconds_bucket', { webhook: 'pvc-resize', le: '0.1' }),
    8,
  );
  assert.equal(
    sumSamples(text, 'test_duration_seconds_bucket', { webhook: 'pvc-resize', le: '0.005' }),
    0,
  );
  assert.ok(
    Math.abs(sumSamples(text, 'test_duration_seconds_sum', { webhook: 'pvc-resize' }) - 0.08) <
      1e-9,
  );
  assert.equal(
    sumSamples(text, 'test_resident_memory_bytes'),
    100,
    "only the live worker's memory",
  );
  assert.equal(
    sumSamples(text, 'voe_webhook_certificate_reloads_total', { result: 'success' }),
    2,
    'the largest count stays the largest (max), not a sum',
  );
});

test('what is retired grows with the distinct series, not with the number of ended workers', async () => {
  const ended = await workerMetrics(2, 1, 100);
  const samples = (metrics: WorkerMetrics): number =>
    metrics.reduce((n, m) => n + m.values.length, 0);
  let retired = retireWorkerMetrics([], ended);
  const once = samples(retired);
  for (let i = 0; i < 50; i++) retired = retireWorkerMetrics(retired, ended);
  assert.equal(samples(retired), once);
  assert.ok(retired.every((m) => ['counter', 'histogram'].includes(String(m.type))));
  assert.equal(sumSamples(await aggregatePoolMetrics([retired]), 'test_answers_total'), 102);
});
