import type { BlockDevices, FsResizer } from '../../fsresize/index.js';
import type { VolumeLocks } from '../csi/volume-locks.js';
import type { HostResolver } from '../host/host-resolver.js';
import type { DeviceLocator } from './device-locator.js';
import type { Mounter } from './mounter.js';
import type { ScsiRescanner } from './scsi-rescanner.js';

export interface NodeTimeouts {
  /** How long NodeStage and NodePublish wait for a hotplugged disk's device to show up. */
  deviceMs: number;
  /** How long NodeExpandVolume waits for the device to show the new size. */
  growMs: number;
}

export const DEFAULT_NODE_TIMEOUTS: NodeTimeouts = { deviceMs: 30_000, growMs: 60_000 };

export interface NodeDeps {
  /** This guest node's id: its VM's (VMI's) name on the host. */
  nodeId: string;
  /** The filesystem made on a blank mount volume whose capability names none (ext4, as Harvester's driver). */
  defaultFsType: string;
  locator: DeviceLocator;
  mounter: Mounter;
  resizer: FsResizer;
  devices: BlockDevices;
  rescanner: ScsiRescanner;
  /** For NodeExpandVolume without a capacity_range: the host PVC's capacity is the size to wait for. Optional on a node without host credentials. */
  hosts: HostResolver | undefined;
  locks: VolumeLocks;
  timeouts: NodeTimeouts;
}
