/** The fields of guest objects the node monitor reads and writes (the guest API server's JSON). */
import type { LiveMeta as ObjectMeta } from '../../model/index.js';
import type { HostVm } from '../host/host-objects.js';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface GuestNode {
  metadata?: ObjectMeta;
  spec?: { taints?: Taint[] };
  status?: { conditions?: Array<{ type?: string; status?: string }> };
}

export interface GuestPv {
  metadata?: ObjectMeta;
  spec?: { csi?: { driver?: string; volumeHandle?: string } };
}

/** A host VirtualMachine with the status fields the monitor judges (KubeVirt's VirtualMachineStatus). */
export type MonitoredVm = HostVm & {
  status?: {
    printableStatus?: string;
    ready?: boolean;
    conditions?: Array<{ type?: string; status?: string }>;
  };
};
