import type { NodeDeps } from './node-deps.js';
import { expandVolume } from './expand-volume.js';
import { publishVolume, unpublishVolume } from './publish-volume.js';
import { stageVolume, unstageVolume } from './stage-volume.js';
import { volumeStats } from './volume-stats.js';
import type { ServiceHandlers } from '../server/service-handlers.js';

/** The node capabilities: staging, volume stats and node expansion. */
export const NODE_CAPABILITIES = [
  'STAGE_UNSTAGE_VOLUME',
  'GET_VOLUME_STATS',
  'EXPAND_VOLUME',
] as const;

/** The CSI Node service's handlers. */
export function createNodeService(deps: NodeDeps): ServiceHandlers {
  return {
    NodeStageVolume: (request, ctx) => stageVolume(deps, request as never, ctx),
    NodeUnstageVolume: (request) => unstageVolume(deps, request as never),
    NodePublishVolume: (request, ctx) => publishVolume(deps, request as never, ctx),
    NodeUnpublishVolume: (request) => unpublishVolume(deps, request as never),
    NodeGetVolumeStats: (request) => volumeStats(deps, request as never),
    NodeExpandVolume: (request, ctx) => expandVolume(deps, request as never, ctx),
    NodeGetCapabilities: async () => ({
      capabilities: NODE_CAPABILITIES.map((type) => ({ rpc: { type } })),
    }),
    NodeGetInfo: async () => ({ node_id: deps.nodeId, max_volumes_per_node: '0' }),
  };
}
