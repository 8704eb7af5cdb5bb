import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Phase, PHASES, type PhaseValue } from './expansion-phase.js';
import { STUCK_REASONS } from './stage-reason.js';
import type { VolumeExpansion } from './volume-expansion.js';

export interface TrackerMetrics {
  readonly registry: Registry;
  /** voe_expansions_total{outcome}: expansions that reached Completed, Infeasible, RolledBack or Superseded while this tracker led. */
  readonly outcomes: Counter<'outcome'>;
  /** voe_expansion_phase_duration_seconds{phase}: how long expansions stayed in a phase, observed when they left it. */
  readonly phaseDuration: Histogram<'phase'>;
  /** voe_expansion_duration_seconds{outcome}: from the VolumeExpansion's creation to its outcome. */
  readonly endToEnd: Histogram<'outcome'>;
  /** voe_tracker_status_writes_total{result}: status writes, by result (written, conflict, failed). */
  readonly statusWrites: Counter<'result'>;
  /** voe_tracker_queue_wait_seconds: from an informer change queuing a PVC's key to a worker taking it. */
  readonly queueWait: Histogram;
  /** voe_tracker_status_write_duration_seconds: a status write's round trip to the API server. */
  readonly statusWriteDuration: Histogram;
  /** voe_tracker_leader: 1 while this replica holds the lease. */
  readonly leader: Gauge;
}

/** Seconds from a few seconds (a quick controller expansion) to hours (a VM restarted later). */
const DURATION_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600];

/** Seconds of the leader's own steps: a few milliseconds to seconds under load. */
const STEP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The tracker's metrics in a private registry (with prom-client's default process metrics).
 * Two gauges are read from the VolumeExpansion cache at each scrape (`list`): voe_expansions{phase}
 * and voe_expansions_stuck{reason}, so every replica answers them from the cluster's state.
 */
export function createTrackerMetrics(list: () => readonly VolumeExpansion[]): TrackerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const outcomes = new Counter({
    name: 'voe_expansions_total',
    help: 'Expansions that reached an outcome (Completed, Infeasible, RolledBack, Superseded) while this tracker led.',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of [Phase.Completed, Phase.Infeasible, Phase.RolledBack, Phase.Superseded])
    outcomes.inc({ outcome }, 0);
  new Gauge({
    name: 'voe_expansions',
    help: 'VolumeExpansions by phase, read from the cache at each scrape.',
    labelNames: ['phase'] as const,
    registers,
    collect() {
      const counts = new Map<PhaseValue, number>(PHASES.map((phase) => [phase, 0]));
      for (const expansion of list()) {
        const phase = expansion.status?.phase;
        if (phase && counts.has(phase)) counts.set(phase, counts.get(phase)! + 1);
      }
      for (const [phase, count] of counts) this.set({ phase }, count);
    },
  });
  new Gauge({
    name: 'voe_expansions_stuck',
    help: 'VolumeExpansions in phase Stuck, by reason, read from the cache at each scrape.',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      const counts = new Map<string, number>(STUCK_REASONS.map((reason) => [reason, 0]));
      for (const expansion of list()) {
        if (expansion.status?.phase !== Phase.Stuck) continue;
        const reason = expansion.status.reason ?? '';
        counts.set(reason, (counts.get(reason) ?? 0) + 1);
      }
      for (const [reason, count] of counts) this.set({ reason }, count);
    },
  });
  return {
    registry,
    outcomes,
    phaseDuration: new Histogram({
      name: 'voe_expansion_phase_duration_seconds',
      help: 'Time expansions spent in a phase, observed when they left it.',
      labelNames: ['phase'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    endToEnd: new Histogram({
      name: 'voe_expansion_duration_seconds',
      help: "From the VolumeExpansion's creation to its outcome, by outcome.",
      labelNames: ['outcome'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    statusWrites: new Counter({
      name: 'voe_tracker_status_writes_total',
      help: 'VolumeExpansion status writes, by result (written, conflict, failed).',
      labelNames: ['result'] as const,
      registers,
    }),
    queueWait: new Histogram({
      name: 'voe_tracker_queue_wait_seconds',
      help: "From an informer change queuing a PVC's key to a worker taking it (the leader's queue).",
      buckets: STEP_BUCKETS,
      registers,
    }),
    statusWriteDuration: new Histogram({
      name: 'voe_tracker_status_write_duration_seconds',
      help: 'Round trip of a VolumeExpansion status write to the API server, whatever its result.',
      buckets: STEP_BUCKETS,
      registers,
    }),
    leader: new Gauge({
      name: 'voe_tracker_leader',
      help: '1 while this replica holds the lease and writes, else 0.',
      registers,
    }),
  };
}
