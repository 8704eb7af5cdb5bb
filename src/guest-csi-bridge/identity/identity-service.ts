import type { ServiceHandlers } from '../server/service-handlers.js';

export interface IdentityDeps {
  driverName: string;
  vendorVersion: string;
  /** Whether the controller service is served here (its capability is announced then). */
  controller: boolean;
}

/**
 * The CSI Identity service's handlers. Probe answers ready whenever the process answers at all:
 * the livenessprobe sidecar turns a failed Probe into a restart, and a slow or unreachable host
 * (a Harvester upgrade) is no reason to restart the driver; calls that need the host answer
 * UNAVAILABLE meanwhile (CSI_HOST_UNAVAILABLE) and their sidecars retry them.
 */
export function createIdentityService(deps: IdentityDeps): ServiceHandlers {
  return {
    GetPluginInfo: async () => ({
      name: deps.driverName,
      vendor_version: deps.vendorVersion,
      manifest: {},
    }),
    GetPluginCapabilities: async () => ({
      capabilities: [
        ...(deps.controller ? [{ service: { type: 'CONTROLLER_SERVICE' } }] : []),
        { volume_expansion: { type: 'ONLINE' } },
      ],
    }),
    Probe: async () => ({ ready: { value: true } }),
  };
}
