import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectDefaultMetrics, Registry } from 'prom-client';
import {
  aggregatePoolMetrics,
  createWebhookMetrics,
  sumSamples,
} from '../../../src/webhook/index.js';

type Json = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** One process's metrics as a worker sends them, with the values of `name` set to `value`. */
function withValue(metrics: Json, values: Record<string, number>): Json {
  return metrics.map((m) =>
    values[m.name] === undefined
      ? m
      : { ...m, values: m.values.map((v) => ({ ...v, value: values[m.name]! })) },
  ) as Json;
}

test('over the processes of --workers: limits and the event loop lag are the largest, the start time the earliest, quantities the sum', async () => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  createWebhookMetrics(registry).certificateReloads.inc({ result: 'success' });
  const json = await registry.getMetricsAsJSON();
  const names = new Set(json.map((m) => m.name));
  for (const name of [
    'process_max_fds',
    'process_start_time_seconds',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_p99_seconds',
  ]) {
    assert.ok(names.has(name), `prom-client registers ${name}`);
  }
  const primary = withValue(json, {
    process_max_fds: 20_000,
    process_start_time_seconds: 1_000,
    process_resident_memory_bytes: 30,
    process_open_fds: 10,
    nodejs_eventloop_lag_p99_seconds: 0.001,
    nodejs_eventloop_lag_seconds: 0.001,
    nodejs_eventloop_lag_min_seconds: 0.0005,
    nodejs_eventloop_lag_max_seconds: 0.002,
  });
  const worker = (start: number, p99: number, reloads: number): Json =>
    withValue(json, {
      process_max_fds: 20_000,
      process_start_time_seconds: start,
      process_resident_memory_bytes: 100,
      process_open_fds: 20,
      nodejs_eventloop_lag_p99_seconds: p99,
      nodejs_eventloop_lag_seconds: p99,
      nodejs_eventloop_lag_min_seconds: 0.0001,
      nodejs_eventloop_lag_max_seconds: p99 * 2,
      voe_webhook_certificate_reloads_total: reloads,
    });
  const text = await aggregatePoolMetrics([primary, worker(1_001, 0.5, 3), worker(1_002, 0.01, 3)]);
  assert.equal(sumSamples(text, 'process_max_fds'), 20_000, 'a limit: not 60000');
  assert.equal(sumSamples(text, 'process_start_time_seconds'), 1_000, "the first process's start");
  assert.equal(
    sumSamples(text, 'process_resident_memory_bytes'),
    230,
    "every process's memory, the first one's included",
  );
  assert.equal(sumSamples(text, 'process_open_fds'), 50);
  assert.equal(
    sumSamples(text, 'nodejs_eventloop_lag_p99_seconds'),
    0.5,
    'the worst process, not the average',
  );
  assert.equal(sumSamples(text, 'nodejs_eventloop_lag_seconds'), 0.5);
  assert.equal(sumSamples(text, 'nodejs_eventloop_lag_min_seconds'), 0.0001);
  assert.equal(sumSamples(text, 'nodejs_eventloop_lag_max_seconds'), 1);
  assert.equal(
    sumSamples(text, 'voe_webhook_certificate_reloads_total', { result: 'success' }),
    3,
    'each worker loads the same files',
  );
  assert.equal(text.match(/^nodejs_version_info\{/gm)?.length, 1);
});

test("voe_webhook_caches_not_synced is read from its source at each scrape, and over --workers is the largest, not the sum (each worker counts the pool's caches)", async () => {
  let notSynced = 0;
  const registry = new Registry();
  createWebhookMetrics(registry, { cachesNotSynced: () => notSynced });
  const scrape = async (): Promise<Json> => registry.getMetricsAsJSON();
  assert.equal(sumSamples(await registry.metrics(), 'voe_webhook_caches_not_synced'), 0);
  notSynced = 2;
  const two = await scrape();
  notSynced = 3;
  const three = await scrape();
  assert.equal(
    sumSamples(await aggregatePoolMetrics([two, three]), 'voe_webhook_caches_not_synced'),
    3,
  );
  assert.equal(
    sumSamples(
      await createWebhookMetrics(new Registry()).registry.metrics(),
      'voe_webhook_caches_not_synced',
    ),
    0,
    'without a source: 0',
  );
});

test('voe_webhook_caches_not_read is read from its source at each scrape, and over --workers is the largest, not the sum', async () => {
  let notRead = 3;
  const registry = new Registry();
  createWebhookMetrics(registry, { cachesNotRead: () => notRead });
  const three = await registry.getMetricsAsJSON();
  notRead = 0;
  const none = await registry.getMetricsAsJSON();
  assert.equal(
    sumSamples(await aggregatePoolMetrics([three, three, none]), 'voe_webhook_caches_not_read'),
    3,
  );
  assert.equal(
    sumSamples(
      await createWebhookMetrics(new Registry()).registry.metrics(),
      'voe_webhook_caches_not_read',
    ),
    0,
    'without a source: 0',
  );
});
