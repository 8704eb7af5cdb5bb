import type { Counter, Histogram } from 'prom-client';
import type { WebhookMetrics } from './webhook-metrics.js';

export interface AdmissionSeries {
  requests: Counter.Internal;
  duration: Histogram.Internal<'webhook' | 'decision' | 'reason'>;
}

/**
 * The request counter and duration histogram of one webhook, by decision and reason: one labelled
 * child per (decision, reason), so the label hashing is done once per series, not per request.
 */
export function admissionSeries(
  metrics: WebhookMetrics,
  webhook: string,
): (allowed: boolean, reason: string) => AdmissionSeries {
  const seriesByKey = new Map<string, AdmissionSeries>();
  return (allowed, reason) => {
    const decision = allowed ? 'allowed' : 'refused';
    const key = `${decision}/${reason}`;
    let found = seriesByKey.get(key);
    if (!found) {
      const labels = { webhook, decision, reason };
      found = {
        requests: metrics.requests.labels(labels),
        duration: metrics.duration.labels(labels),
      };
      seriesByKey.set(key, found);
    }
    return found;
  };
}
