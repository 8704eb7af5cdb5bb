import type { Stage } from './derive-stage.js';
import type { VolumeExpansionStatus } from './volume-expansion.js';

/** An RFC 3339 time to the second, as Kubernetes writes metav1.Time. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The status to write for a derived stage: the stage's phase, waitingFor, reason, message, sizes
 * and pods, what the guest's filesystem growth found; the time each phase was first entered (kept from the previous status, so a restarted
 * tracker keeps them); lastTransitionTime when the phase changed; `progress` as the stage
 * measured it (its `since` text kept while the phase it measures stays). Pure.
 */
export function nextStatus(
  previous: VolumeExpansionStatus | undefined,
  stage: Stage,
  now: number,
): VolumeExpansionStatus {
  const before = previous ?? {};
  const changed = before.phase !== stage.phase;
  const phaseTimestamps = { ...(before.phaseTimestamps ?? {}) };
  phaseTimestamps[stage.phase] ??= rfc3339(now);
  const progress =
    stage.progress === undefined
      ? before.progress
      : {
          phase: stage.progress.phase,
          since:
            before.progress?.phase === stage.progress.phase && before.progress.since
              ? before.progress.since
              : rfc3339(stage.progress.since),
        };
  return withoutUndefined({
    phase: stage.phase,
    waitingFor: stage.waitingFor,
    reason: stage.reason,
    message: stage.message,
    phaseTimestamps,
    lastTransitionTime: changed ? rfc3339(now) : (before.lastTransitionTime ?? rfc3339(now)),
    progress,
    sizes: withoutUndefined(stage.sizes),
    pods: withoutUndefined(stage.pods),
    guestFilesystem: stage.guestFilesystem,
  });
}
