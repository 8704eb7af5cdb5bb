import type { ServiceHandlers } from '../server/service-handlers.js';
import type { ControllerDeps } from './controller-deps.js';
import { createVolume } from './create-volume.js';
import { deleteVolume } from './delete-volume.js';
import { expandVolume } from './expand-volume.js';
import { publishVolume, unpublishVolume } from './publish-volume.js';
import { validateVolumeCapabilities } from './validate-volume-capabilities.js';

/** The controller capabilities: volumes made and deleted, hotplugged into guest node VMs, grown. */
export const CONTROLLER_CAPABILITIES = [
  'CREATE_DELETE_VOLUME',
  'PUBLISH_UNPUBLISH_VOLUME',
  'EXPAND_VOLUME',
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
    ControllerGetCapabilities: async () => ({
      capabilities: CONTROLLER_CAPABILITIES.map((type) => ({ rpc: { type } })),
    }),
  };
}
