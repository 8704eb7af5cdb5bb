import type { Logger } from '../log/index.js';
import { isNotFound } from './api-error.js';
import { realClock, type Clock } from './clock.js';
import {
  EventSeriesCache,
  type EventInput,
  type ObjectRef,
  type SeriesEntry,
} from './event-series.js';
import type { EventSink } from './event-sink.js';
import { KubeError, KubeErrorCode } from './kube-error.js';
import { microTime } from './lease-lock.js';

export interface EventRecorderOptions {
  sink: EventSink;
  /** e.g. `harvesterhci.io/voe-vmwatcher`; <= 128 chars. */
  reportingController: string;
  /** e.g. the pod name; <= 128 chars. */
  reportingInstance: string;
  /** Repeats within this window aggregate into a series; 6 min unless told. */
  seriesWindowMs?: number;
  /** At most this many Events waiting to be written; more are dropped (and logged). 1000 unless told. */
  maxPending?: number;
  clock?: Clock;
  logger?: Logger;
}

const NOTE_MAX_BYTES = 1024;
const FIELD_MAX = 128;

function truncateUtf8(s: string, maxBytes: number): string {
  const b = Buffer.from(s, 'utf8');
  if (b.length <= maxBytes) return s;
  return (
    b
      .subarray(0, maxBytes - 3)
      .toString('utf8')
      .replace(/\uFFFD+$/, '') + '...'
  );
}

function refJson(r: ObjectRef): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}

/**
 * events.k8s.io/v1 recorder. `record` never blocks and never throws for API trouble: events go
 * to an in-memory queue written in the background (errors are logged, a full queue drops). The
 * same event (regarding+related+reason+action+note+type) repeated within the series window
 * becomes one Event whose series {count, lastObservedTime} is patched, and repeats that pile up
 * while a write is in flight are coalesced into one patch. `flush()` waits for the queue to
 * empty; `stop()` refuses new events and flushes.
 */
export class EventRecorder {
  readonly #o: EventRecorderOptions;
  readonly #clock: Clock;
  readonly #cache: EventSeriesCache;
  readonly #pending = new Set<SeriesEntry>();
  #writer: Promise<void> | undefined;
  #stopped = false;
  #seq = 0;
  #lastPrune = 0;
  #dropped = 0;

  constructor(options: EventRecorderOptions) {
    for (const f of ['reportingController', 'reportingInstance'] as const) {
      const v = options[f];
      if (!v || v.length > FIELD_MAX)
        throw new KubeError(
          KubeErrorCode.EventRecorderConfig,
          `${f} must be 1..${FIELD_MAX} characters (got ${v ? v.length : 0})`,
        );
    }
    this.#o = options;
    this.#clock = options.clock ?? realClock;
    this.#cache = new EventSeriesCache(options.seriesWindowMs);
  }

  /** Events not written because the queue was full or the recorder stopped. */
  get dropped(): number {
    return this.#dropped;
  }

  record(input: EventInput): void {
    if (this.#stopped) {
      this.#dropped++;
      return;
    }
    const now = this.#clock.now();
    const namespace = input.regarding.namespace || 'default';
    if (now - this.#lastPrune > 60_000) {
      this.#cache.prune(now, (e) => this.#pending.has(e));
      this.#lastPrune = now;
    }
    const { entry } = this.#cache.observe(
      input,
      now,
      () => this.#newName(input.regarding.name, now),
      namespace,
    );
    if (!this.#pending.has(entry) && this.#pending.size >= (this.#o.maxPending ?? 1000)) {
      this.#dropped++;
      this.#o.logger?.warn(
        { reason: input.reason, regarding: input.regarding.name, dropped: this.#dropped },
        'event queue full; dropping event',
      );
      return;
    }
    this.#pending.add(entry);
    this.#writer ??= this.#drain().finally(() => {
      this.#writer = undefined;
    });
  }

  /** Waits until every event recorded so far was written (or failed and was logged). */
  async flush(): Promise<void> {
    while (this.#writer) await this.#writer;
  }

  /** Refuses new events, then flushes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.flush();
  }

  #newName(regardingName: string, now: number): string {
    // client-go names events "<regarding>.<unix nanos in hex>"; a sequence keeps them unique.
    const suffix = (BigInt(now) * 1_000_000n + BigInt(this.#seq++ % 1_000_000)).toString(16);
    return `${regardingName.slice(0, 253 - suffix.length - 1)}.${suffix}`;
  }

  #eventBody(entry: SeriesEntry, count: number, lastObservedAt: number): Record<string, unknown> {
    const e = entry.input;
    const body: Record<string, unknown> = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: entry.name, namespace: entry.namespace },
      eventTime: microTime(new Date(entry.firstObservedAt)),
      reportingController: this.#o.reportingController,
      reportingInstance: this.#o.reportingInstance,
      action: e.action.slice(0, FIELD_MAX),
      reason: e.reason.slice(0, FIELD_MAX),
      regarding: refJson(e.regarding),
      note: truncateUtf8(e.note, NOTE_MAX_BYTES),
      type: e.type,
    };
    if (e.related) body.related = refJson(e.related);
    if (count > 1) body.series = { count, lastObservedTime: microTime(new Date(lastObservedAt)) };
    return body;
  }

  async #drain(): Promise<void> {
    for (;;) {
      const entry = this.#pending.values().next().value;
      if (entry === undefined) return;
      this.#pending.delete(entry);
      const count = entry.count;
      const last = entry.lastObservedAt;
      try {
        if (entry.writtenCount === 0) {
          await this.#o.sink.create(entry.namespace, this.#eventBody(entry, count, last));
        } else if (count > entry.writtenCount) {
          try {
            await this.#o.sink.patchSeries(entry.namespace, entry.name, {
              count,
              lastObservedTime: microTime(new Date(last)),
            });
          } catch (err) {
            if (!isNotFound(err)) throw err;
            // The Event expired (TTL) or was deleted: write the series as a new Event.
            entry.name = this.#newName(entry.input.regarding.name, this.#clock.now());
            await this.#o.sink.create(entry.namespace, this.#eventBody(entry, count, last));
          }
        }
        entry.writtenCount = count;
      } catch (err) {
        this.#o.logger?.warn(
          { err, reason: entry.input.reason, event: `${entry.namespace}/${entry.name}` },
          'could not write event',
        );
      }
      // Repeats recorded while this write was in flight: one more write carries them all.
      if (entry.count > count) this.#pending.add(entry);
    }
  }
}
