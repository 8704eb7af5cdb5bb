import type { FsResizeError } from './fsresize-error.js';

/** What to do with an inspected device. */
export type GrowPlan =
  | { kind: 'noop'; reason: string }
  | { kind: 'refuse'; error: FsResizeError }
  | {
      kind: 'grow';
      tool: string;
      args: string[];
      reason: string;
      precheck?: { tool: string; args: string[] };
    }
  /** Nothing to grow, but the filesystem must be checked before anyone is told so (see planGrow). */
  | { kind: 'check'; reason: string; precheck: { tool: string; args: string[] } };

/** What planGrow may be told beyond the inspection. */
export interface PlanOptions {
  /**
   * Processes whose open files voe may not read (DeviceUsers.unreadable) may use the device:
   * 'refuse' (default) an offline grow while there are any; 'ignore' them (only for a caller that
   * knows they do not use the device, e.g. a sandbox's init). The same for the processes voe
   * cannot see at all (DeviceUsers.processesHidden: voe in a PID namespace of its own).
   */
  unreadableProcesses?: 'refuse' | 'ignore';
  /**
   * The size the volume was grown to (e.g. kubelet's new size): a device still short of it by
   * DEVICE_SIZE_SLACK_BYTES or more is refused FSRESIZE_DEVICE_TOO_SMALL (the volume has not grown
   * on this node yet). Judged on the inspection made under the device lock, so a retry never
   * acts on a size read before another operation on the device.
   */
  requiredDeviceBytes?: number;
  /**
   * A filesystem mounted read-only on a writable device: 'leave' it, a no-op with the reason
   * (default; an operator's choice), or 'refuse' FSRESIZE_MOUNT_READ_ONLY, for a caller whose
   * success records the resize as done (kubelet's expandfs: its mount-utils path fails there and
   * retries, and kubelet skips volumes that are read-only by their spec before calling).
   */
  readOnlyMount?: 'leave' | 'refuse';
  /**
   * A read-only device: 'leave' it, a no-op with the reason (default, as Kubernetes' NeedResize
   * says no), or 'refuse' FSRESIZE_DEVICE_READ_ONLY, for the same callers as readOnlyMount: a
   * success would record a filesystem that did not grow as grown.
   */
  readOnlyDevice?: 'leave' | 'refuse';
}
