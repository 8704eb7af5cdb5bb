import { mkdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { checkSupported, requireCapability } from '../csi/volume-capability.js';
import { CsiError } from '../errors/csi-error.js';
import type {
  NodePublishVolumeRequest,
  NodeUnpublishVolumeRequest,
} from '../proto/csi-messages.js';
import type { CallContext } from '../server/call-context.js';
import type { NodeDeps } from './node-deps.js';
import { deviceOf } from './stage-volume.js';

/**
 * NodePublishVolume: a mount volume's staging path bind-mounted at the target path (a directory
 * made for it), read-only when asked; a block volume's device bind-mounted on a file made at the
 * target path. Idempotent: a target that already shows the volume is success.
 */
export async function publishVolume(
  deps: NodeDeps,
  request: NodePublishVolumeRequest,
  ctx: CallContext,
): Promise<Record<string, never>> {
  const { volume_id: volumeId, target_path: target, staging_target_path: staging } = request;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  if (!target) throw new CsiError('CSI_INVALID_ARGUMENT', 'target_path is required');
  const capability = requireCapability(request.volume_capability, 'volume_capability');
  checkSupported(capability, 'volume_capability');
  const readOnly = request.readonly || capability.accessMode === 'SINGLE_NODE_READER_ONLY';
  return deps.locks.run(volumeId, 'NodePublishVolume', async () => {
    if (capability.accessType === 'block') {
      const device = await deviceOf(deps, volumeId, ctx);
      const id = await deps.devices.identify(device);
      const mounted = await deps.mounter.mountAt(target);
      if (mounted !== null) {
        const shown = await deps.devices.identify(target).catch(() => undefined);
        if (shown?.majorMinor === id.majorMinor) return {};
        throw new CsiError(
          'CSI_MOUNT_FAILED',
          `target path ${target} already shows something else than volume ${volumeId}'s device ${device}`,
        );
      }
      await mkdir(dirname(target), { recursive: true });
      const existing = await stat(target).catch(() => undefined);
      if (existing === undefined) await writeFile(target, '');
      await deps.mounter.bind(device, target, readOnly);
      return {};
    }
    if (!staging)
      throw new CsiError(
        'CSI_INVALID_ARGUMENT',
        'staging_target_path is required: the driver stages mount volumes (STAGE_UNSTAGE_VOLUME)',
      );
    const staged = await deps.mounter.mountAt(staging);
    if (staged === null)
      throw new CsiError(
        'CSI_NOT_MOUNTED',
        `volume ${volumeId} is not staged: nothing is mounted at ${staging}`,
      );
    const mounted = await deps.mounter.mountAt(target);
    if (mounted !== null) {
      if (mounted.majorMinor === staged.majorMinor) return {};
      throw new CsiError(
        'CSI_MOUNT_FAILED',
        `target path ${target} already shows another filesystem (${mounted.source})`,
      );
    }
    await mkdir(target, { recursive: true });
    await deps.mounter.bind(staging, target, readOnly);
    return {};
  });
}

/** NodeUnpublishVolume: unmounts the target path and removes the file or directory made for it (success when it is not there). */
export async function unpublishVolume(
  deps: NodeDeps,
  request: NodeUnpublishVolumeRequest,
): Promise<Record<string, never>> {
  const { volume_id: volumeId, target_path: target } = request;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  if (!target) throw new CsiError('CSI_INVALID_ARGUMENT', 'target_path is required');
  return deps.locks.run(volumeId, 'NodeUnpublishVolume', async () => {
    if ((await stat(target).catch(() => undefined)) === undefined) return {};
    await deps.mounter.unmount(target);
    // Only an empty directory or the file made for a block volume: rmdir refuses a directory with contents.
    const after = await stat(target).catch(() => undefined);
    try {
      if (after?.isDirectory()) await rmdir(target);
      else if (after !== undefined) await rm(target, { force: true });
    } catch (error) {
      throw new CsiError(
        'CSI_MOUNT_FAILED',
        `removing ${target} after unmounting it: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        { cause: error },
      );
    }
    return {};
  });
}
