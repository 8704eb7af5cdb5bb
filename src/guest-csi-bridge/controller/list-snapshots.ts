import { isHostPvcName } from '../csi/host-pvc-name.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import type { HostRemoteBackup, HostVolumeSnapshot } from '../host/host-objects.js';
import type {
  ListSnapshotsRequest,
  ListSnapshotsResponse,
  SnapshotMessage,
} from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import type { ControllerDeps } from './controller-deps.js';
import {
  isGuestSnapshot,
  SNAP_HOST_VOLUME_MODE_LABEL,
  snapshotMessageOf,
} from './plan-host-snapshot.js';
import {
  BACKUP_SOURCE_LABEL,
  backupMessageOf,
  isGuestBackup,
  parseBackupSnapshotId,
} from './plan-remote-backup.js';

/** What a guest snapshot is on the host: a VolumeSnapshot, or (a backup snapshot) a VolumeRemoteBackup. */
export type HostSnapshotObject = HostVolumeSnapshot | HostRemoteBackup;

/** A VolumeRemoteBackup names its source PVC in spec.source (a string); a VolumeSnapshot's spec.source is an object. */
function isRemoteBackup(object: HostSnapshotObject): object is HostRemoteBackup {
  return typeof object.spec?.source === 'string';
}

/** The CSI Snapshot of a host snapshot object. */
function messageOf(object: HostSnapshotObject): SnapshotMessage {
  return isRemoteBackup(object) ? backupMessageOf(object) : snapshotMessageOf(object);
}

/** Whether ListSnapshots shows it: a guest driver's, not being deleted. */
function isListed(object: HostSnapshotObject): boolean {
  if (object.metadata?.deletionTimestamp) return false;
  return isRemoteBackup(object) ? isGuestBackup(object) : isGuestSnapshot(object);
}

export interface SnapshotPage {
  /** The snapshots of the page, in snapshot id order. */
  snapshots: HostSnapshotObject[];
  nextToken: string;
}

/**
 * One page of the guest snapshots among `all` (pure): those not being deleted, matching the
 * filters (`snapshotId`, `sourceVolumeId`: empty matches all), sorted by snapshot id (a host
 * VolumeSnapshot's is its name, a backup's `backup:<namespace>/<name>`); the page starts at
 * the offset `startingToken` (decimal; empty: 0) and holds at most `maxEntries` (0: all);
 * `nextToken` is the offset after it, or empty at the end. A token that is not an offset inside
 * the list is CSI_INVALID_STARTING_TOKEN; negative max_entries CSI_INVALID_ARGUMENT.
 */
export function pageOfSnapshots(
  all: readonly HostSnapshotObject[],
  request: Pick<
    ListSnapshotsRequest,
    'max_entries' | 'starting_token' | 'snapshot_id' | 'source_volume_id'
  >,
): SnapshotPage {
  const max = request.max_entries ?? 0;
  if (max < 0) throw new CsiError('CSI_INVALID_ARGUMENT', 'max_entries must not be negative');
  const matching = all
    .filter(isListed)
    .map((object) => ({ object, message: messageOf(object) }))
    .filter(({ message }) => !request.snapshot_id || message.snapshot_id === request.snapshot_id)
    .filter(
      ({ message }) =>
        !request.source_volume_id || message.source_volume_id === request.source_volume_id,
    )
    .sort((a, b) => a.message.snapshot_id.localeCompare(b.message.snapshot_id));
  const token = request.starting_token ?? '';
  const start = token === '' ? 0 : /^\d{1,9}$/.test(token) ? Number(token) : -1;
  if (start < 0 || (token !== '' && start >= matching.length))
    throw new CsiError(
      'CSI_INVALID_STARTING_TOKEN',
      `starting_token "${token.slice(0, 64)}" is not a position in the list of ${matching.length} snapshots; list again from the start`,
    );
  const end = max === 0 ? matching.length : Math.min(matching.length, start + max);
  return {
    snapshots: matching.slice(start, end).map(({ object }) => object),
    nextToken: end < matching.length ? String(end) : '',
  };
}

/** The host objects a snapshot id names (none when it names none), or all guest snapshots of the namespace. */
async function hostSnapshotsFor(
  host: HostApi,
  snapshotId: string | undefined,
): Promise<HostSnapshotObject[]> {
  if (!snapshotId)
    return [
      ...(await host.listVolumeSnapshots(SNAP_HOST_VOLUME_MODE_LABEL)),
      ...(await host.listRemoteBackups(BACKUP_SOURCE_LABEL)),
    ];
  const backup = parseBackupSnapshotId(snapshotId);
  const found = backup
    ? backup.namespace === host.namespace
      ? await host.getRemoteBackup(backup.name)
      : undefined
    : isHostPvcName(snapshotId)
      ? await host.getVolumeSnapshot(snapshotId)
      : undefined;
  return found ? [found] : [];
}

/**
 * ListSnapshots: the guest snapshots of the host namespace (host VolumeSnapshots with the guest
 * labels, and VolumeRemoteBackups with the guest label), filtered by snapshot id and source
 * volume id, in pages (pageOfSnapshots).
 */
export async function listSnapshots(
  deps: ControllerDeps,
  request: ListSnapshotsRequest,
  ctx: CallContext,
): Promise<ListSnapshotsResponse> {
  const host = deps.hosts.forSecrets(request.secrets, ctx.signal);
  const page = pageOfSnapshots(await hostSnapshotsFor(host, request.snapshot_id), request);
  return {
    entries: page.snapshots.map((s) => ({ snapshot: messageOf(s) })),
    next_token: page.nextToken,
  };
}
