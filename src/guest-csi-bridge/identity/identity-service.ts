import type { HostApi } from '../host/host-api.js';
import type { ServiceHandlers } from '../server/service-handlers.js';

export interface IdentityDeps {
  driverName: string;
  vendorVersion: string;
  /** Whether the controller service is served here (its capability is announced then). */
  controller: boolean;
  /** The host whose API the Probe asks; undefined on a node without host credentials (always ready). */
  host: HostApi | undefined;
}

/** The CSI Identity service's handlers. Probe answers ready = whether the host API answers now. */
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
    Probe: async (_request, ctx) => {
      if (deps.host === undefined) return { ready: { value: true } };
      try {
        await deps.host.probe(ctx.signal);
        return { ready: { value: true } };
      } catch (error) {
        ctx.log.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'Probe: the host API does not answer',
        );
        return { ready: { value: false } };
      }
    },
  };
}
