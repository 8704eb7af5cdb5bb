import { Phase, WaitingFor } from '../expansion-phase.js';
import { StageReason } from '../stage-reason.js';
import type { ClaimEvent, LonghornVolume } from '../../model/index.js';
import type { Verdict } from './stage-verdict.js';

/**
 * external-resizer's Warning when the driver lacks the ONLINE VolumeExpansion capability and
 * answers FailedPrecondition while a pod uses the volume (kubernetes-csi/external-resizer
 * pkg/controller/controller.go: "Unable to expand <ns/name> because CSI driver <driver> only
 * supports offline expansion and volume is currently in-use").
 */
export const OFFLINE_ONLY_TEXT = 'only supports offline expansion';

/** A gRPC DeadlineExceeded the resizer retries: no PVC condition, an Event only (Longhorn's 90 s). */
const DEADLINE_EXCEEDED_TEXT = 'DeadlineExceeded';

/** What the storage driver itself says about the controller part. */
export interface StorageDriverInput {
  /** namespace/name of the PVC, for messages. */
  claim: string;
  /** The size followed, as written. */
  toText: string;
  /** The PV's spec.csi.driver. */
  driver: string | undefined;
  /** The Longhorn volume of the PV (its spec.csi.volumeHandle), when Longhorn is served and has it. */
  longhornVolume: LonghornVolume | undefined;
  /** Events about the PVC. */
  events: readonly ClaimEvent[];
  /** ms since the epoch: events older than this (the VolumeExpansion's creation) are about an earlier resize. */
  since: number | undefined;
}

function eventTime(event: ClaimEvent): number | undefined {
  const text = event.lastTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp;
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The newest current Warning Event whose message contains `text`. */
function newestEvent(input: StorageDriverInput, text: string): ClaimEvent | undefined {
  let newest: { event: ClaimEvent; at: number } | undefined;
  for (const event of input.events) {
    if (event.type !== 'Warning' || !(event.message ?? '').includes(text)) continue;
    const at = eventTime(event) ?? 0;
    if (input.since !== undefined && at < input.since) continue;
    if (!newest || at >= newest.at) newest = { event, at };
  }
  return newest?.event;
}

/**
 * The driver's own account of a ControllerResizing expansion (docs/tracker.md "Stuck reasons"):
 * an offline-only driver's Event (Stuck, stop the VM), Longhorn's `lastExpansionError` (Stuck,
 * with Longhorn's error), Longhorn's `expansionRequired` or a DeadlineExceeded retry Event
 * (LonghornExpanding: still expanding, never NoProgress). Any other verdict, or nothing said,
 * keeps the verdict given. Pure.
 */
export function storageDriverVerdict(input: StorageDriverInput, verdict: Verdict): Verdict {
  if (verdict.phase !== Phase.ControllerResizing) return verdict;
  const offline = newestEvent(input, OFFLINE_ONLY_TEXT);
  if (offline) {
    return {
      phase: Phase.Stuck,
      waitingFor: WaitingFor.User,
      reason: StageReason.OfflineExpansionOnly,
      message:
        `The CSI driver ${input.driver ?? 'of the PV'} can grow ${input.claim} only while no pod uses it (external-resizer: ${offline.message}). ` +
        `Stop the VM: the volume then grows to ${input.toText} offline, and the disk at the next start.`,
      progressPhase: Phase.ControllerResizing,
    };
  }
  const status = input.longhornVolume?.status;
  const error = status?.lastExpansionError?.trim();
  if (error) {
    return {
      phase: Phase.Stuck,
      waitingFor: WaitingFor.User,
      reason: StageReason.LonghornExpansionFailed,
      message:
        `Longhorn failed to expand the volume of ${input.claim}${status?.lastExpansionFailedAt ? ` at ${status.lastExpansionFailedAt}` : ''}: ${error}. ` +
        `Check the volume and its replicas in Longhorn (disk space on the replicas' nodes, Events in longhorn-system); ` +
        `lower the request to roll back, or raise it again once Longhorn can expand.`,
      progressPhase: Phase.ControllerResizing,
    };
  }
  const retried = newestEvent(input, DEADLINE_EXCEEDED_TEXT);
  if (status?.expansionRequired === true || (retried && input.driver === 'driver.longhorn.io')) {
    return {
      phase: Phase.ControllerResizing,
      waitingFor: WaitingFor.ExternalResizer,
      reason: StageReason.LonghornExpanding,
      message:
        `Longhorn is still expanding the volume of ${input.claim} to ${input.toText}` +
        `${retried ? ' (external-resizer retries after its call ran out of time, as Longhorn expands past 90 s)' : ''}; ` +
        `a large volume takes a while. Its progress is in Longhorn's Volume (status.expansionRequired).`,
      progressPhase: Phase.ControllerResizing,
    };
  }
  return verdict;
}
