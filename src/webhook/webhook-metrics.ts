import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type Metric,
} from 'prom-client';

export interface WebhookMetrics {
  readonly registry: Registry;
  /** voe_webhook_requests_total{webhook, decision, reason}: decision is allowed or refused, reason the validator's label. */
  readonly requests: Counter<'webhook' | 'decision' | 'reason'>;
  /** voe_webhook_request_duration_seconds{webhook, decision, reason}: from the request's headers to the answer written. */
  readonly duration: Histogram<'webhook' | 'decision' | 'reason'>;
  /** voe_webhook_bad_requests_total{webhook}: answered 400, 413 or 415 (not an AdmissionReview v1, too large, not utf-8 JSON). */
  readonly badRequests: Counter<'webhook'>;
  /** voe_webhook_certificate_reloads_total{result}: result is "success" (the first load included) or "failure". */
  readonly certificateReloads: Counter<'result'>;
  /** voe_webhook_certificate_expiry_timestamp_seconds: notAfter of the certificate being served. */
  readonly certificateExpiry: Gauge;
  /** voe_webhook_caches_not_synced: how many informer caches do not follow the API server, read from `cachesNotSynced` at each scrape. */
  readonly cachesNotSynced: Gauge;
  /** voe_webhook_caches_not_read: caches of resources the cluster serves that the decisions do not read yet (StartedCaches.notRead), read from `cachesNotRead` at each scrape. */
  readonly cachesNotRead: Gauge;
}

function reuse<T extends Metric>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** The counter `name` of the registry, created unless it is there (a second server on one registry shares it). */
function counter<L extends string>(
  registry: Registry,
  config: { name: string; help: string; labelNames: readonly L[] },
): Counter<L> {
  return reuse(registry, config.name, () => new Counter({ ...config, registers: [registry] }));
}

function gauge(
  registry: Registry,
  config: { name: string; help: string; read?: () => number },
): Gauge {
  const { read, ...rest } = config;
  return reuse(
    registry,
    config.name,
    () =>
      new Gauge({
        ...rest,
        registers: [registry],
        ...(read
          ? {
              collect() {
                this.set(read());
              },
            }
          : {}),
      }),
  );
}

/**
 * The webhook's metrics in `registry` (a private one by default, with prom-client's default
 * process metrics). `cachesNotSynced` counts the caches that do not follow the API server now,
 * `cachesNotRead` those watched but not read yet (0 unless given).
 */
export function createWebhookMetrics(
  registry?: Registry,
  sources: { cachesNotSynced?: () => number; cachesNotRead?: () => number } = {},
): WebhookMetrics {
  const reg = registry ?? new Registry();
  if (!reg.getSingleMetric('process_cpu_seconds_total')) collectDefaultMetrics({ register: reg });
  return {
    registry: reg,
    requests: counter(reg, {
      name: 'voe_webhook_requests_total',
      help: "Admission reviews answered, by webhook, decision (allowed, refused) and reason (the validator's label).",
      labelNames: ['webhook', 'decision', 'reason'] as const,
    }),
    duration: reuse(
      reg,
      'voe_webhook_request_duration_seconds',
      () =>
        new Histogram({
          name: 'voe_webhook_request_duration_seconds',
          help: 'Time to answer an admission review (parse, validate, respond), by webhook, decision and reason.',
          labelNames: ['webhook', 'decision', 'reason'] as const,
          registers: [reg],
          buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        }),
    ),
    badRequests: counter(reg, {
      name: 'voe_webhook_bad_requests_total',
      help: 'Requests answered 400, 413 or 415: not an admission.k8s.io/v1 AdmissionReview, over the body limit, or not utf-8 JSON.',
      labelNames: ['webhook'] as const,
    }),
    certificateReloads: counter(reg, {
      name: 'voe_webhook_certificate_reloads_total',
      help: 'Serving certificate loads, the first one included, then one per change of the files, by result (success, failure).',
      labelNames: ['result'] as const,
    }),
    certificateExpiry: gauge(reg, {
      name: 'voe_webhook_certificate_expiry_timestamp_seconds',
      help: 'notAfter of the serving certificate in use, Unix seconds.',
    }),
    cachesNotSynced: gauge(reg, {
      name: 'voe_webhook_caches_not_synced',
      help:
        'Informer caches that do not follow the API server now: not listed yet, or their list or watch failed since their last list that succeeded. ' +
        'PVC resize and VM reviews are refused with 500 while it is above 0.',
      read: () => sources.cachesNotSynced?.() ?? 0,
    }),
    cachesNotRead: gauge(reg, {
      name: 'voe_webhook_caches_not_read',
      help:
        'Caches of resources the cluster serves that the decisions do not read yet, because they have not all listed (voe serve --longhorn auto: ' +
        'Longhorn found after start, or its caches refused: its Role not applied). Longhorn volumes are judged as if Longhorn were absent while it is above 0; voe stays ready.',
      read: () => sources.cachesNotRead?.() ?? 0,
    }),
  };
}
