import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { HostReachability } from './follow-host-reachability.js';

/**
 * `voe csi`'s metrics in a private registry, with prom-client's default process metrics:
 * voe_csi_host_reachable, read at each scrape from the host's reachability (1 when the last probe
 * of the host API answered, 0 when it did not or before the first).
 */
export function createCsiMetrics(reachability: HostReachability | undefined): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'voe_csi_host_reachable',
    help: '1 when the last probe of the host (Harvester) API answered (GET /version, every 30 s), 0 otherwise; absent on a node plugin without host credentials.',
    registers: reachability ? [registry] : [],
    collect() {
      this.set(reachability?.current() === true ? 1 : 0);
    },
  });
  return registry;
}
