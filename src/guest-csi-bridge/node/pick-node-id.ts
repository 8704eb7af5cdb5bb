import type { HostVmi } from '../host/host-objects.js';

/** MAC addresses that name no guest NIC: Calico's fixed ee:ee:ee:ee:ee:ee and the all-zero address. */
const IGNORED_MACS = new Set(['ee:ee:ee:ee:ee:ee', '00:00:00:00:00:00']);

function normalise(mac: string): string {
  return mac.trim().toLowerCase();
}

/**
 * The guest node's VM name on the host, as Harvester's driver finds it: the VMI (in the host
 * namespace) one of whose interfaces has one of this guest's MAC addresses (Calico's and the zero
 * address left out); else the node name itself (a guest node is named after its VM).
 */
export function pickNodeId(
  nodeName: string,
  macs: readonly string[],
  vmis: readonly HostVmi[],
): string {
  const own = new Set(macs.map(normalise).filter((mac) => mac !== '' && !IGNORED_MACS.has(mac)));
  const byMac = vmis.find((vmi) =>
    (vmi.status?.interfaces ?? []).some((i) => i.mac !== undefined && own.has(normalise(i.mac))),
  );
  if (byMac?.metadata?.name) return byMac.metadata.name;
  return nodeName;
}
