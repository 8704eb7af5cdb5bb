/** Reference to the object an Event is about (events.k8s.io/v1 `regarding` / `related`). */
export interface ObjectRef {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface EventInput {
  regarding: ObjectRef;
  related?: ObjectRef;
  type: EventType;
  /** Why (CamelCase, <= 128 chars), e.g. `VolumeResizeFailed`. */
  reason: string;
  /** What was done or failed (CamelCase, <= 128 chars), e.g. `Resize`. */
  action: string;
  /** Human-readable, <= 1 kB (longer notes are cut). */
  note: string;
}

/** One aggregated event: an Event object in the cluster plus its series. */
export interface SeriesEntry {
  readonly key: string;
  readonly input: EventInput;
  /** Event object name and namespace. */
  name: string;
  namespace: string;
  count: number;
  firstObservedAt: number;
  lastObservedAt: number;
  /** Count the API server has (0 = not created yet). */
  writtenCount: number;
}

/**
 * Events are the same occurrence when regarding, related, reason, action, note and type all match
 * (client-go's events `getKey`, reporting controller/instance being fixed per recorder).
 */
export function eventKey(e: EventInput): string {
  const ref = (r?: ObjectRef): unknown[] =>
    r
      ? [
          r.apiVersion ?? '',
          r.kind ?? '',
          r.namespace ?? '',
          r.name,
          r.uid ?? '',
          r.fieldPath ?? '',
        ]
      : [];
  return JSON.stringify([ref(e.regarding), ref(e.related), e.reason, e.action, e.note, e.type]);
}

/**
 * Pure aggregation state: `observe` says whether an event is new (create an Event) or a repeat
 * within `windowMs` of the last occurrence (bump series.count and lastObservedTime of the
 * existing Event). client-go uses a 6 min window for series.
 */
export class EventSeriesCache {
  readonly windowMs: number;
  readonly #entries = new Map<string, SeriesEntry>();

  constructor(windowMs = 6 * 60_000) {
    this.windowMs = windowMs;
  }

  observe(
    input: EventInput,
    now: number,
    newName: () => string,
    namespace: string,
  ): { entry: SeriesEntry; repeat: boolean } {
    const key = eventKey(input);
    const existing = this.#entries.get(key);
    if (existing && now - existing.lastObservedAt <= this.windowMs) {
      existing.count++;
      existing.lastObservedAt = now;
      return { entry: existing, repeat: true };
    }
    const entry: SeriesEntry = {
      key,
      input,
      name: newName(),
      namespace,
      count: 1,
      firstObservedAt: now,
      lastObservedAt: now,
      writtenCount: 0,
    };
    this.#entries.set(key, entry);
    return { entry, repeat: false };
  }

  /** Forgets series whose window closed (they can no longer aggregate). */
  prune(now: number, keep: (e: SeriesEntry) => boolean = () => false): void {
    for (const [k, e] of this.#entries)
      if (now - e.lastObservedAt > this.windowMs && !keep(e)) this.#entries.delete(k);
  }

  get size(): number {
    return this.#entries.size;
  }
}
