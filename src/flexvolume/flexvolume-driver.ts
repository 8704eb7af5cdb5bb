import type { VoeError } from '../errors/index.js';
import {
  asVoeError,
  deviceNodeOf,
  isAnonymousMount,
  visibleMountAt,
  type FsResizer,
  type MountEntry,
  type MountTable,
} from '../fsresize/index.js';

/** What a FlexVolume driver prints on stdout (kubelet's DriverStatus). */
export type FlexVolumeResponse =
  | {
      status: 'Success';
      message?: string;
      capabilities?: { attach: boolean; requiresFSResize: boolean };
      volumeNewSize?: number;
    }
  | { status: 'Failure'; message: string }
  | { status: 'Not supported' };

export interface FlexVolumeAnswer {
  response: FlexVolumeResponse;
  exitCode: number;
}

export interface FlexVolumeDriverDeps {
  resizer: FsResizer;
  /** Finds the device behind the mount path when kubelet passes no device path. */
  mounts: MountTable;
  /** The device node of a block device number (production: deviceNodeOf, from sysfs and /dev). */
  deviceNode?: (majorMinor: string) => Promise<string | null>;
  /**
   * Aborted when the driver is asked to stop (SIGTERM...): the grow stops at its next safe point,
   * never in the middle of a tool, and the call answers a FSRESIZE_INTERRUPTED Failure — also
   * when the grow itself had finished (the Failure then says what was done; kubelet retries and
   * the retry finds the filesystem grown).
   */
  signal?: AbortSignal;
}

/**
 * Codes of the driver's own Failures (the core's carry FSRESIZE_*): FLEXVOLUME_INVALID_CALL, a call
 * kubelet would not make (arguments missing or malformed, a shrink); FLEXVOLUME_NO_DEVICE, no block
 * device found behind the mount path kubelet passed (docs/errors.md, section "FlexVolume driver").
 */
export const FlexVolumeFailureCode = {
  InvalidCall: 'FLEXVOLUME_INVALID_CALL',
  NoDevice: 'FLEXVOLUME_NO_DEVICE',
} as const;

export type FlexVolumeFailureCode =
  (typeof FlexVolumeFailureCode)[keyof typeof FlexVolumeFailureCode];

/** A Failure answer; every message starts with its code (the driver's own, or a VoeError's), as kubelet logs it. */
export const failure = (
  code: FlexVolumeFailureCode | VoeError['code'],
  message: string,
): FlexVolumeAnswer => ({
  response: { status: 'Failure', message: `${code}: ${message}` },
  exitCode: 1,
});

/**
 * The device to grow for the filesystem a mount path shows, or the Failure saying why there is
 * none. A filesystem with a device number of its own is found by that number: the source named at
 * mount time may not exist here or may since name another device. btrfs reports an anonymous
 * number (major 0), so its source is used, and the core checks it is a block device. Any other
 * anonymous mount (tmpfs, FUSE, overlay) is on no block device, whatever its source string says.
 */
async function deviceOfMount(
  entry: MountEntry,
  mountPath: string,
  deviceNode: (majorMinor: string) => Promise<string | null>,
): Promise<string | FlexVolumeAnswer> {
  if (!isAnonymousMount(entry)) {
    return (
      (await deviceNode(entry.majorMinor)) ??
      failure(
        'FLEXVOLUME_NO_DEVICE',
        `expandfs: block device ${entry.majorMinor} (${entry.fsType}) is mounted at ${mountPath}, but this node has no device node for it in /dev; pass the device path`,
      )
    );
  }
  if (entry.fsType === 'btrfs' && entry.source.startsWith('/')) return entry.source;
  return failure(
    'FLEXVOLUME_NO_DEVICE',
    `expandfs: no block device is mounted at ${mountPath} (it shows ${entry.fsType} from "${entry.source.slice(0, 100)}")`,
  );
}

function parseSize(value: string | undefined, name: string): number | string {
  if (value === undefined || !/^\d+$/.test(value)) {
    return `${name} must be a size in bytes, got ${value === undefined ? 'nothing' : JSON.stringify(value.slice(0, 40))}`;
  }
  if (!Number.isSafeInteger(Number(value)))
    return `${name} ${value.slice(0, 40)} is too large: sizes up to 2^53-1 bytes (8 PiB) are handled exactly`;
  return Number(value);
}

function parseOptions(value: string | undefined): Record<string, unknown> | string {
  if (value === undefined) return 'missing the JSON options argument';
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      return 'the options argument is not a JSON object';
    return parsed as Record<string, unknown>;
  } catch {
    return 'the options argument is not valid JSON';
  }
}

/** The JSON options, new size and old size both expand calls carry, or the Failure answer naming `op` and what is wrong. */
function parseResizeArguments(
  op: string,
  options: string | undefined,
  newSize: string | undefined,
  oldSize: string | undefined,
): { next: number; previous: number } | FlexVolumeAnswer {
  const parsed = parseOptions(options);
  if (typeof parsed === 'string') return failure('FLEXVOLUME_INVALID_CALL', `${op}: ${parsed}`);
  const next = parseSize(newSize, 'new size');
  if (typeof next === 'string') return failure('FLEXVOLUME_INVALID_CALL', `${op}: ${next}`);
  const previous = parseSize(oldSize, 'old size');
  if (typeof previous === 'string') return failure('FLEXVOLUME_INVALID_CALL', `${op}: ${previous}`);
  return { next, previous };
}

/**
 * One FlexVolume driver call, as kubelet makes it (pkg/volume/flexvolume: driver-call.go
 * appends the JSON options first, then expander.go appends the rest):
 *   init
 *   expandvolume <json options> <device mount path> <new size> <old size>
 *   expandfs     <json options> <device path> <device mount path> <new size> <old size>
 * Every other operation answers "Not supported" so kubelet uses its defaults. Never throws.
 */
export async function handleFlexVolumeCall(
  args: readonly string[],
  deps: FlexVolumeDriverDeps,
): Promise<FlexVolumeAnswer> {
  const [op, ...rest] = args;
  try {
    switch (op) {
      case 'init':
        return {
          response: { status: 'Success', capabilities: { attach: false, requiresFSResize: true } },
          exitCode: 0,
        };
      case 'expandvolume':
        return expandVolumeCall(rest);
      case 'expandfs':
        return await expandFsCall(rest, deps);
      default:
        return { response: { status: 'Not supported' }, exitCode: 1 };
    }
  } catch (thrown) {
    // Every failure carries a code, FSRESIZE_UNEXPECTED_ERROR for one voe did not expect.
    const error = asVoeError(thrown);
    return failure(error.code, error.message);
  }
}

/** `expandvolume <json options> <device mount path> <new size> <old size>`. Pure. */
function expandVolumeCall(rest: readonly string[]): FlexVolumeAnswer {
  const [options, , newSize, oldSize] = rest;
  const sizes = parseResizeArguments('expandvolume', options, newSize, oldSize);
  if ('response' in sizes) return sizes;
  const { next, previous } = sizes;
  if (next < previous)
    return failure(
      'FLEXVOLUME_INVALID_CALL',
      `expandvolume: shrinking from ${previous} to ${next} bytes is not supported`,
    );
  // The volume itself is grown by the storage (Harvester/Longhorn); the driver confirms the size.
  return { response: { status: 'Success', volumeNewSize: next }, exitCode: 0 };
}

/** `expandfs <json options> <device path> <device mount path> <new size> <old size>`: grows the filesystem. */
async function expandFsCall(
  rest: readonly string[],
  deps: FlexVolumeDriverDeps,
): Promise<FlexVolumeAnswer> {
  const [options, devicePath, deviceMountPath, newSize, oldSize] = rest;
  const sizes = parseResizeArguments('expandfs', options, newSize, oldSize);
  if ('response' in sizes) return sizes;
  const { next } = sizes;
  const mountPath = deviceMountPath || undefined;
  const device = await deviceToGrow(devicePath ?? '', mountPath, deps);
  if (typeof device !== 'string') return device;
  // The device must show the new size (checked by the core under the device lock), and a
  // Success makes kubelet record the resize as done: a read-only mount or device is a Failure to retry.
  const result = await deps.resizer.grow(device, {
    ...(mountPath === undefined ? {} : { mountPath }),
    requiredDeviceBytes: next,
    readOnlyMount: 'refuse',
    readOnlyDevice: 'refuse',
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  if (deps.signal?.aborted) {
    return failure(
      'FSRESIZE_INTERRUPTED',
      `stopped (${String(deps.signal.reason)}) after its work had finished: ${result.reason}`,
    );
  }
  return { response: { status: 'Success', message: result.reason }, exitCode: 0 };
}

/** The device kubelet passed, else the block device of the filesystem its mount path shows. */
async function deviceToGrow(
  devicePath: string,
  mountPath: string | undefined,
  deps: FlexVolumeDriverDeps,
): Promise<string | FlexVolumeAnswer> {
  if (devicePath !== '') return devicePath;
  if (mountPath === undefined)
    return failure(
      'FLEXVOLUME_INVALID_CALL',
      'expandfs: kubelet passed neither a device path nor a mount path',
    );
  // The filesystem the mount path shows (a mount hidden under another one is not it).
  const entry = await visibleMountAt(deps.mounts, mountPath);
  if (entry === null)
    return failure('FLEXVOLUME_NO_DEVICE', `expandfs: no block device is mounted at ${mountPath}`);
  return deviceOfMount(entry, mountPath, deps.deviceNode ?? deviceNodeOf);
}
