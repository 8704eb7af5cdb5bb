import type { ServiceHandlers } from '../server/service-handlers.js';
import type { ControllerDeps } from './controller-deps.js';
import { createSnapshot } from './create-snapshot.js';
import { createVolume } from './create-volume.js';
import { deleteSnapshot } from './delete-snapshot.js';
import { deleteVolume } from './delete-volume.js';
import { expandVolume } from './expand-volume.js';
import { listSnapshots } from './list-snapshots.js';
import { publishVolume, unpublishVolume } from './publish-volume.js';
import { validateVolumeCapabilities } from './validate-volume-capabilities.js';

/**
 * The controller capabilities: volumes made (blank or from a snapshot) and deleted, hotplugged
 * into guest node VMs, grown; snapshots made, deleted and listed.
 */
export const CONTROLLER_CAPABILITIES = [
  'CREATE_DELETE_VOLUME',
  'PUBLISH_UNPUBLISH_VOLUME',
  'EXPAND_VOLUME',
  'CREATE_DELETE_SNAPSHOT',
  'LIST_SNAPSHOTS',
] as const;

/** The CSI Controller service's handlers. */
export function createControllerService(deps: ControllerDeps): ServiceHandlers {
  return {
    CreateVolume: (request, ctx) => createVolume(deps, request as never, ctx),
    DeleteVolume: (request, ctx) => deleteVolume(deps, request as never, ctx),
    ControllerPublishVolume: (request, ctx) => publishVolume(deps, request as never, ctx),
    ControllerUnpublishVolume: (request, ctx) => unpublishVolume(deps, request as never, ctx),
    ValidateVolumeCapabilities: (request) => validateVolumeCapabilities(deps, request as never),
    ControllerExpandVolume: (request, ctx) => expandVolume(deps, request as never, ctx),
    CreateSnapshot: (request, ctx) => createSnapshot(deps, request as never, ctx),
    DeleteSnapshot: (request, ctx) => deleteSnapshot(deps, request as never, ctx),
    ListSnapshots: (request, ctx) => listSnapshots(deps, request as never, ctx),
    ControllerGetCapabilities: async () => ({
      capabilities: CONTROLLER_CAPABILITIES.map((type) => ({ rpc: { type } })),
    }),
  };
}
