import { readCapacityRange } from '../csi/capacity-range.js';
import { hostPvcName } from '../csi/host-pvc-name.js';
import {
  checkSupported,
  isShared,
  requireCapability,
  type VolumeCapability,
} from '../csi/volume-capability.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import type { HostPvc, HostVolumeSnapshot } from '../host/host-objects.js';
import type {
  CreateVolumeRequest,
  VolumeContentSourceMessage,
  VolumeMessage,
} from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import type { ControllerDeps } from './controller-deps.js';
import {
  hostStorageClassFor,
  hostVolumeModeFor,
  incompatibility,
  planHostPvc,
  type PlanInput,
} from './plan-host-pvc.js';
import { isGuestSnapshot } from './plan-host-snapshot.js';
import { parseBackupSnapshotId } from './plan-remote-backup.js';
import { restoreInput, sourceIncompatibility, withSnapshotSource } from './plan-restore.js';
import { checkShareable } from './check-shareable.js';
import { capacityBytesOf, requestBytesOf } from './pvc-sizes.js';
import { restoreFromBackup } from './restore-from-backup.js';

/** The existing volume's size: the larger of its host PVC's capacity and request. */
function existingSizeBytes(pvc: HostPvc): bigint | undefined {
  const capacity = capacityBytesOf(pvc);
  const request = requestBytesOf(pvc);
  if (capacity === undefined) return request;
  return request === undefined || capacity > request ? capacity : request;
}

/** The snapshot id a CreateVolume restores from, undefined for a blank volume; a clone is refused. Pure. */
export function snapshotSourceOf(
  source: VolumeContentSourceMessage | null | undefined,
): string | undefined {
  if (!source?.type) return undefined;
  if (source.type !== 'snapshot')
    throw new CsiError(
      'CSI_UNSUPPORTED_CAPABILITY',
      `volume_content_source: volumes from a ${source.type} (clones) are not supported by this driver`,
    );
  const id = source.snapshot?.snapshot_id;
  if (!id)
    throw new CsiError(
      'CSI_INVALID_ARGUMENT',
      'volume_content_source.snapshot.snapshot_id is required',
    );
  return id;
}

/** The guest snapshot `snapshotId` on the host; CSI_SNAPSHOT_NOT_FOUND when there is none. */
async function readSourceSnapshot(host: HostApi, snapshotId: string): Promise<HostVolumeSnapshot> {
  const snapshot = await host.getVolumeSnapshot(snapshotId);
  if (!snapshot || !isGuestSnapshot(snapshot) || snapshot.metadata?.deletionTimestamp)
    throw new CsiError(
      'CSI_SNAPSHOT_NOT_FOUND',
      `no snapshot ${snapshotId} (host VolumeSnapshot ${host.namespace}/${snapshotId})`,
    );
  return snapshot;
}

/**
 * CreateVolume: a host PVC named after the request (see planHostPvc), not waited for. A retry of
 * the same request finds the PVC it made and succeeds, answering that volume's size (its host
 * PVC's, which covers the size asked for); a different request for an existing name (another
 * size, mode or host StorageClass) is ALREADY_EXISTS. From a backup snapshot, Harvester's
 * VolumeRemoteRestore makes the host PVC (restoreFromBackup).
 */
export async function createVolume(
  deps: ControllerDeps,
  request: CreateVolumeRequest,
  ctx: CallContext,
): Promise<{ volume: VolumeMessage }> {
  const { name } = request;
  if (!name) throw new CsiError('CSI_INVALID_ARGUMENT', 'name is required');
  if (request.volume_capabilities.length === 0)
    throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_capabilities are required');
  const capabilities: VolumeCapability[] = request.volume_capabilities.map((message, i) => {
    const capability = requireCapability(message, `volume_capabilities[${i}]`);
    checkSupported(capability, `volume_capabilities[${i}]`);
    return capability;
  });
  const shared = capabilities.some(isShared);
  const snapshotId = snapshotSourceOf(request.volume_content_source);
  if (shared && snapshotId)
    throw new CsiError(
      'CSI_UNSUPPORTED_CAPABILITY',
      "shared (MULTI_NODE_MULTI_WRITER) volumes from a snapshot are not served (nor by Harvester's driver)",
    );
  const capacity = readCapacityRange(request.capacity_range);
  const parameters = request.parameters ?? {};
  const host = deps.hosts.forSecrets(request.secrets, ctx.signal);
  const volumeId = hostPvcName(name);
  const backup = snapshotId ? parseBackupSnapshotId(snapshotId) : undefined;
  if (backup)
    return deps.locks.run(volumeId, 'CreateVolume', () =>
      restoreFromBackup(host, { volumeId, backup, capacity, parameters }, ctx),
    );
  return deps.locks.run(volumeId, 'CreateVolume', async () => {
    const source = snapshotId ? await readSourceSnapshot(host, snapshotId) : undefined;
    const asked: PlanInput = {
      name,
      capacity,
      parameters,
      defaultHostStorageClass: deps.hostStorageClass,
    };
    const planned = source ? restoreInput(asked, source) : asked;
    const className = hostStorageClassFor(planned.parameters, deps.hostStorageClass);
    const hostProvisioner =
      (shared || hostVolumeModeFor(planned.parameters) === 'Filesystem') && className
        ? (await host.getStorageClass(className))?.provisioner
        : undefined;
    if (shared) await checkShareable(host, className, hostProvisioner);
    const input: PlanInput = { ...planned, hostProvisioner, shared };
    const blank = planHostPvc(input);
    const plan = snapshotId ? withSnapshotSource(blank, snapshotId) : blank;
    const result = await host.createPvc(plan.body);
    let capacityBytes = plan.capacityBytes;
    if (result.created) {
      ctx.log.info(
        { volumeId, name, request: plan.body.spec?.resources?.requests?.['storage'] },
        'created the host PVC',
      );
    } else {
      if (result.existing.metadata?.deletionTimestamp)
        throw new CsiError(
          'CSI_VOLUME_BEING_DELETED',
          `host PVC ${host.namespace}/${volumeId} is being deleted; retry once it is gone`,
        );
      const why =
        incompatibility(result.existing, plan, input) ??
        sourceIncompatibility(result.existing, snapshotId);
      if (why !== undefined) throw new CsiError('CSI_VOLUME_EXISTS', why);
      capacityBytes = existingSizeBytes(result.existing) ?? capacityBytes;
    }
    return {
      volume: {
        volume_id: volumeId,
        capacity_bytes: String(capacityBytes),
        volume_context: { ...parameters },
        ...(snapshotId ? { content_source: { snapshot: { snapshot_id: snapshotId } } } : {}),
      },
    };
  });
}
