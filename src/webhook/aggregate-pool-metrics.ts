import { AggregatorRegistry } from 'prom-client';
import type { WorkerMetrics } from './worker-messages.js';

type Aggregator = 'sum' | 'first' | 'min' | 'max' | 'average' | 'omit';

/**
 * Where prom-client 15's own aggregator (set by each default metric in lib/metrics/*.js) gives the
 * wrong answer over the processes of `voe serve --workers N` (the first process and its workers).
 * Every other metric keeps its own: sums for the counters, histograms, memory, CPU, handles,
 * requests and open file descriptors (the total of all processes), `first` for
 * nodejs_version_info (one Node), `min`/`max` for nodejs_eventloop_lag_min/max_seconds, `max`
 * for voe_webhook_certificate_reloads_total and `min` for the certificate expiry (set where they
 * are made, webhook-metrics.ts).
 */
export const POOL_METRIC_AGGREGATORS: Readonly<Record<string, Aggregator>> = {
  // A limit of each process (the same for all, inherited), not a quantity: a sum (40000 for two of 20000) is no one's limit.
  process_max_fds: 'max',
  // prom-client omits it; the earliest is the first process's: when voe serve started.
  process_start_time_seconds: 'min',
  // prom-client averages these; the idle first process would halve a stuck worker's lag: the worst process.
  nodejs_eventloop_lag_seconds: 'max',
  nodejs_eventloop_lag_mean_seconds: 'max',
  nodejs_eventloop_lag_stddev_seconds: 'max',
  nodejs_eventloop_lag_p50_seconds: 'max',
  nodejs_eventloop_lag_p90_seconds: 'max',
  nodejs_eventloop_lag_p99_seconds: 'max',
};

/**
 * Prometheus text of the metrics of several processes (each one's Registry.getMetricsAsJSON()),
 * aggregated by prom-client's AggregatorRegistry with each metric's aggregator, except those in
 * POOL_METRIC_AGGREGATORS.
 */
export async function aggregatePoolMetrics(all: readonly WorkerMetrics[]): Promise<string> {
  const fixed = all.map((metrics) =>
    metrics.map((metric) => {
      const aggregator = POOL_METRIC_AGGREGATORS[metric.name];
      return aggregator === undefined ? metric : { ...metric, aggregator };
    }),
  );
  return await AggregatorRegistry.aggregate(fixed as WorkerMetrics[]).metrics();
}
