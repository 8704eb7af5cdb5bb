import type { BlockDeviceId } from './model/block-devices.js';
import type { CommandRunner } from './model/command-runner.js';
import { confirmSameDevice } from './devices/confirm-same-device.js';
import { createDeviceLock, type DeviceLock, type ReleaseLock } from './run/device-lock.js';
import { executePlan } from './run/execute-plan.js';
import { FsResizeError } from './model/fsresize-error.js';
import { identifyDevice } from './devices/identify-device.js';
import { inspectDevice } from './plan/inspect-device.js';
import type { GrowOptions, GrowResult, Inspection } from './model/inspection.js';
import type { MountTable } from './model/mount-table.js';
import { createMountinfoTable } from './mounts/create-mountinfo-table.js';
import { needsResize } from './plan/needs-resize.js';
import { planOnceUsersSettle } from './plan-once-users-settle.js';
import type { BlockDevices } from './model/block-devices.js';
import type { PlanOptions } from './model/grow-plan.js';
import type { ResizerPorts } from './model/resizer-ports.js';
import { stopIfAsked } from './run/stop-if-asked.js';
import { stoppedWithProbe } from './run/stopped-with-probe.js';
import { createSystemBlockDevices } from './devices/system-block-devices.js';
import { systemPageSize } from './devices/system-page-size.js';

export interface FsResizerOptions {
  /** Runs every external tool (production: createExecFileRunner()). */
  runner: CommandRunner;
  /** What is mounted (production: createMountinfoTable(), i.e. /proc/self/mountinfo). */
  mounts?: MountTable;
  /** Device facts (production: createSystemBlockDevices({runner})). */
  devices?: BlockDevices;
  /** One operation per device (production: createDeviceLock({directory: '/run/voe/fsresize'})). */
  lock?: DeviceLock;
  /** See PlanOptions.unreadableProcesses; default 'refuse'. */
  unreadableProcesses?: PlanOptions['unreadableProcesses'];
  /**
   * The system page size, to which resize2fs rounds an ext filesystem's new size down (see
   * extGrowTarget; Inspection.extPageBytes). Default: the kernel's (systemPageSize()).
   */
  pageBytes?: number;
  timeouts?: {
    /** Each inspection tool (blkid, xfs_io, btrfs dump-super); default 60 s. */
    probeMs?: number;
    /** The grow tool; default 30 min. */
    growMs?: number;
    /** Waiting for another operation on the same device; default 30 min. */
    lockMs?: number;
  };
}

export interface FsResizer {
  /** What is on the device and how big it is; changes nothing. */
  inspect(device: string, options?: { mountPath?: string }): Promise<Inspection>;
  /** Pure: whether the inspected filesystem is smaller than its device. */
  needsResize(inspection: Inspection): boolean;
  /** Grows the filesystem on `device` to fill it, or explains why it did nothing. Throws FsResizeError. */
  grow(device: string, options?: GrowOptions): Promise<GrowResult>;
}

/** How long a grow waits for another resize of the same device by default: longer than any grow. */
export const DEFAULT_LOCK_WAIT_MS = 30 * 60_000;

/** Default lock directory for the command line and the node services. */
export const DEFAULT_LOCK_DIRECTORY = '/run/voe/fsresize';

/** A resizer's ports and settings, with the production adapters where the options give none. */
interface Resizer {
  ports: ResizerPorts;
  lock: DeviceLock;
  lockMs: number;
  /** The options every plan starts from (FsResizerOptions.unreadableProcesses). */
  planDefaults: PlanOptions;
}

/**
 * Builds the shared filesystem-resize core used by `voe fsresize`, the FlexVolume driver and the
 * CSI node service. A grow inspects the device (inspectDevice), plans what to do (planGrow, pure)
 * and carries the plan out through the runner port (executePlan), under the device's lock.
 */
export function createFsResizer(options: FsResizerOptions): FsResizer {
  const resizer = resizerOf(options);
  const { devices } = resizer.ports;
  return {
    async inspect(device, inspectOptions = {}) {
      const id = await identifyDevice(devices, device);
      return (await inspectDevice(resizer.ports, id, inspectOptions.mountPath)).inspection;
    },
    needsResize(inspection) {
      return needsResize(inspection);
    },
    grow(device, growOptions = {}) {
      return growDevice(resizer, device, growOptions);
    },
  };
}

function resizerOf(options: FsResizerOptions): Resizer {
  const { runner } = options;
  const probeMs = options.timeouts?.probeMs ?? 60_000;
  return {
    ports: {
      runner,
      mounts: options.mounts ?? createMountinfoTable(),
      devices: options.devices ?? createSystemBlockDevices({ runner, timeoutMs: probeMs }),
      probeMs,
      growMs: options.timeouts?.growMs ?? 30 * 60_000,
      pageBytes: options.pageBytes ?? systemPageSize(),
    },
    lock: options.lock ?? createDeviceLock({ directory: DEFAULT_LOCK_DIRECTORY }),
    lockMs: options.timeouts?.lockMs ?? DEFAULT_LOCK_WAIT_MS,
    planDefaults:
      options.unreadableProcesses === undefined
        ? {}
        : { unreadableProcesses: options.unreadableProcesses },
  };
}

/** FsResizer.grow: the checks of the call, then the grow under the device lock. */
async function growDevice(
  resizer: Resizer,
  device: string,
  growOptions: GrowOptions,
): Promise<GrowResult> {
  const { devices } = resizer.ports;
  const required = growOptions.requiredDeviceBytes;
  if (required !== undefined && !(Number.isSafeInteger(required) && required >= 0)) {
    throw new FsResizeError(
      'FSRESIZE_INVALID_ARGUMENT',
      `the required device size must be a whole number of bytes, got ${String(required)}`,
    );
  }
  const id = await identifyDevice(devices, device);
  if (growOptions.blockMode) {
    return {
      action: 'noop',
      reason: `${device} is a block-mode volume: the workload uses the raw device, there is no filesystem to grow`,
      device,
      filesystem: null,
      mountPoint: null,
      deviceBytes: await devices.sizeBytes(id),
      beforeBytes: null,
      afterBytes: null,
      dryRun: growOptions.dryRun === true,
      command: null,
      precheck: null,
    };
  }
  stopIfAsked(growOptions.signal, `before growing ${device}: nothing was changed`);
  const release = await resizer.lock.acquire(id.majorMinor, {
    timeoutMs: resizer.lockMs,
    ...(growOptions.signal ? { signal: growOptions.signal } : {}),
    ...(growOptions.onLockWait ? { onWait: growOptions.onLockWait } : {}),
  });
  try {
    // Keep the device open for the whole operation: what blkid and the superblock read
    // brought into the kernel's cache is still there when the grow tool starts.
    const letGo = await devices.hold(id);
    try {
      // The name may have been given to another device while voe waited for the lock.
      await confirmSameDevice(devices, id);
      return await growLocked(resizer, id, release, growOptions);
    } finally {
      await letGo();
    }
  } finally {
    await release();
  }
}

/**
 * Inspect, plan, execute, with the device locked (`held`). A probe ended by the stop signal voe
 * received, before any tool that writes started, is that stop (stoppedWithProbe).
 */
async function growLocked(
  resizer: Resizer,
  id: BlockDeviceId,
  held: ReleaseLock,
  growOptions: GrowOptions,
): Promise<GrowResult> {
  const { ports } = resizer;
  const grow = { ports, id, held, started: { tool: false }, signal: growOptions.signal };
  try {
    const inspected = await inspectDevice(ports, id, growOptions.mountPath);
    const { plan, inspection } = await planOnceUsersSettle(
      ports.devices,
      id,
      inspected.inspection,
      planOptionsOf(resizer.planDefaults, growOptions),
    );
    return await executePlan(grow, plan, { ...inspected, inspection }, growOptions.dryRun === true);
  } catch (error) {
    throw (grow.started.tool ? null : await stoppedWithProbe(error, growOptions.signal)) ?? error;
  }
}

/** What a plan is told beyond the inspection: the resizer's defaults and the call's options. */
function planOptionsOf(defaults: PlanOptions, growOptions: GrowOptions): PlanOptions {
  return {
    ...defaults,
    ...(growOptions.requiredDeviceBytes === undefined
      ? {}
      : { requiredDeviceBytes: growOptions.requiredDeviceBytes }),
    ...(growOptions.readOnlyMount === undefined
      ? {}
      : { readOnlyMount: growOptions.readOnlyMount }),
    ...(growOptions.readOnlyDevice === undefined
      ? {}
      : { readOnlyDevice: growOptions.readOnlyDevice }),
  };
}
