import { isHostPvcName } from '../csi/host-pvc-name.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostVolumeSnapshot } from '../host/host-objects.js';
import type { ListSnapshotsRequest, ListSnapshotsResponse } from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import type { ControllerDeps } from './controller-deps.js';
import {
  isGuestSnapshot,
  SNAP_HOST_VOLUME_MODE_LABEL,
  snapshotMessageOf,
  sourceOf,
} from './plan-host-snapshot.js';

export interface SnapshotPage {
  /** The snapshots of the page, in name order. */
  snapshots: HostVolumeSnapshot[];
  nextToken: string;
}

/**
 * One page of the guest snapshots among `all` (pure): those not being deleted, matching the
 * filters (`snapshotId`, `sourceVolumeId`: empty matches all), sorted by name; the page starts at
 * the offset `startingToken` (decimal; empty: 0) and holds at most `maxEntries` (0: all);
 * `nextToken` is the offset after it, or empty at the end. A token that is not an offset inside
 * the list is CSI_INVALID_STARTING_TOKEN; negative max_entries CSI_INVALID_ARGUMENT.
 */
export function pageOfSnapshots(
  all: readonly HostVolumeSnapshot[],
  request: Pick<
    ListSnapshotsRequest,
    'max_entries' | 'starting_token' | 'snapshot_id' | 'source_volume_id'
  >,
): SnapshotPage {
  const max = request.max_entries ?? 0;
  if (max < 0) throw new CsiError('CSI_INVALID_ARGUMENT', 'max_entries must not be negative');
  const matching = all
    .filter((s) => isGuestSnapshot(s) && !s.metadata?.deletionTimestamp)
    .filter((s) => !request.snapshot_id || s.metadata?.name === request.snapshot_id)
    .filter((s) => !request.source_volume_id || sourceOf(s) === request.source_volume_id)
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const token = request.starting_token ?? '';
  const start = token === '' ? 0 : /^\d{1,9}$/.test(token) ? Number(token) : -1;
  if (start < 0 || (token !== '' && start >= matching.length))
    throw new CsiError(
      'CSI_INVALID_STARTING_TOKEN',
      `starting_token "${token.slice(0, 64)}" is not a position in the list of ${matching.length} snapshots; list again from the start`,
    );
  const end = max === 0 ? matching.length : Math.min(matching.length, start + max);
  return {
    snapshots: matching.slice(start, end),
    nextToken: end < matching.length ? String(end) : '',
  };
}

/**
 * ListSnapshots: the guest snapshots of the host namespace (host VolumeSnapshots with the guest
 * labels), filtered by snapshot id and source volume id, in pages (pageOfSnapshots).
 */
export async function listSnapshots(
  deps: ControllerDeps,
  request: ListSnapshotsRequest,
  ctx: CallContext,
): Promise<ListSnapshotsResponse> {
  const host = deps.hosts.forSecrets(request.secrets, ctx.signal);
  // An id no VolumeSnapshot can have names none.
  if (request.snapshot_id && !isHostPvcName(request.snapshot_id))
    return { entries: [], next_token: '' };
  const all = request.snapshot_id
    ? [await host.getVolumeSnapshot(request.snapshot_id)].filter(
        (s): s is HostVolumeSnapshot => s !== undefined,
      )
    : await host.listVolumeSnapshots(SNAP_HOST_VOLUME_MODE_LABEL);
  const page = pageOfSnapshots(all, request);
  return {
    entries: page.snapshots.map((s) => ({ snapshot: snapshotMessageOf(s) })),
    next_token: page.nextToken,
  };
}
