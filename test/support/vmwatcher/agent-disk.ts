import type { GuestDiskAddress } from '../../../src/vmwatcher/probe/filesystem-list.js';

/** A GuestDiskAddress as the agent list carries it, with only the given fields known. */
export function agentDisk(fields: Partial<GuestDiskAddress>): GuestDiskAddress {
  return {
    serial: undefined,
    busType: undefined,
    pciController: undefined,
    bus: undefined,
    target: undefined,
    unit: undefined,
    dev: undefined,
    ...fields,
  };
}
