import { POOL_METRIC_AGGREGATORS } from './aggregate-pool-metrics.js';
import type { WorkerMetrics } from './worker-messages.js';

type Metric = WorkerMetrics[number];
type Sample = Metric['values'][number];

/**
 * Whether a metric counts up: prom-client's JSON says its type as a string ('counter',
 * 'histogram', ...), though its typings declare the MetricType enum.
 */
const countsUp = (metric: Metric): boolean =>
  ['counter', 'histogram'].includes(String(metric.type));

/** One series: the sample's name (a histogram's `_bucket`, `_sum`, `_count`) and its labels, in a stable order. */
const seriesKey = (sample: Sample): string =>
  JSON.stringify([
    (sample as { metricName?: string }).metricName ?? '',
    Object.entries(sample.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ]);

/**
 * What the workers of a pool that ended leave behind: `retired` (what earlier ends left, [] at
 * first) with the counters and histograms of `ended` (the last metrics that worker sent) merged in,
 * so the pool's aggregate (aggregatePoolMetrics, with this as one more process) never goes back
 * when a worker ends and a new one starts from 0. Gauges are left out (a dead process's memory or
 * file descriptors are no one's now). Series merge per name and labels by the metric's aggregator
 * (a sum adds, `max` keeps the largest, `min` the smallest), so the result holds one sample per
 * distinct series, however many workers ended. Neither input is changed.
 */
export function retireWorkerMetrics(retired: WorkerMetrics, ended: WorkerMetrics): WorkerMetrics {
  const byName = new Map<string, { metric: Metric; samples: Map<string, Sample> }>();
  const merge = (metric: Metric): void => {
    if (!countsUp(metric)) return;
    const aggregator = POOL_METRIC_AGGREGATORS[metric.name] ?? metric.aggregator;
    const entry = byName.get(metric.name) ?? { metric, samples: new Map<string, Sample>() };
    byName.set(metric.name, entry);
    for (const sample of metric.values) {
      const key = seriesKey(sample);
      const before = entry.samples.get(key);
      const value =
        before === undefined
          ? sample.value
          : aggregator === 'max'
            ? Math.max(before.value, sample.value)
            : aggregator === 'min'
              ? Math.min(before.value, sample.value)
              : before.value + sample.value;
      entry.samples.set(key, { ...sample, value });
    }
  };
  for (const metric of retired) merge(metric);
  for (const metric of ended) merge(metric);
  return [...byName.values()].map(({ metric, samples }) => ({
    ...metric,
    values: [...samples.values()],
  })) as WorkerMetrics;
}
