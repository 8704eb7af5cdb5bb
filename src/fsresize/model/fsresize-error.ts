import { isVoeError, VoeError } from '../../errors/index.js';

/**
 * Stable codes of the filesystem-resize core; each one is documented in docs/errors.md, section
 * "fsresize".
 */
export const FsResizeErrorCode = {
  InvalidArgument: 'FSRESIZE_INVALID_ARGUMENT',
  DeviceNotFound: 'FSRESIZE_DEVICE_NOT_FOUND',
  NotABlockDevice: 'FSRESIZE_NOT_A_BLOCK_DEVICE',
  DeviceEmpty: 'FSRESIZE_DEVICE_EMPTY',
  Partitioned: 'FSRESIZE_PARTITIONED',
  UnsupportedFilesystem: 'FSRESIZE_UNSUPPORTED_FILESYSTEM',
  NotMounted: 'FSRESIZE_NOT_MOUNTED',
  MountMismatch: 'FSRESIZE_MOUNT_MISMATCH',
  MountHidden: 'FSRESIZE_MOUNT_HIDDEN',
  DeviceInUse: 'FSRESIZE_DEVICE_IN_USE',
  MountInaccessible: 'FSRESIZE_MOUNT_INACCESSIBLE',
  DeviceTooSmall: 'FSRESIZE_DEVICE_TOO_SMALL',
  MountReadOnly: 'FSRESIZE_MOUNT_READ_ONLY',
  DeviceReadOnly: 'FSRESIZE_DEVICE_READ_ONLY',
  DeviceSmallerThanFilesystem: 'FSRESIZE_DEVICE_SMALLER_THAN_FILESYSTEM',
  Ext32bitLimit: 'FSRESIZE_EXT_32BIT_LIMIT',
  ExtBigallocOffline: 'FSRESIZE_EXT_BIGALLOC_OFFLINE',
  DeviceChanged: 'FSRESIZE_DEVICE_CHANGED',
  ToolMissing: 'FSRESIZE_TOOL_MISSING',
  PermissionDenied: 'FSRESIZE_PERMISSION_DENIED',
  ToolFailed: 'FSRESIZE_TOOL_FAILED',
  FsckFailed: 'FSRESIZE_FSCK_FAILED',
  Timeout: 'FSRESIZE_TIMEOUT',
  UnexpectedOutput: 'FSRESIZE_UNEXPECTED_OUTPUT',
  Busy: 'FSRESIZE_BUSY',
  Interrupted: 'FSRESIZE_INTERRUPTED',
  LockFailed: 'FSRESIZE_LOCK_FAILED',
  DeviceIo: 'FSRESIZE_DEVICE_IO',
  TempFilesFailed: 'FSRESIZE_TEMP_FILES_FAILED',
  UnexpectedError: 'FSRESIZE_UNEXPECTED_ERROR',
} as const;

export type FsResizeErrorCode = (typeof FsResizeErrorCode)[keyof typeof FsResizeErrorCode];

/** What an external tool said when it failed; carried by tool-related errors. */
export interface ToolReport {
  tool: string;
  args: readonly string[];
  exitCode: number | null;
  signal: string | null;
  stderr: string;
}

/** An error of the filesystem-resize core. Tool failures carry the tool's stderr in `tool`. */
export class FsResizeError extends VoeError<FsResizeErrorCode> {
  readonly tool: ToolReport | undefined;

  constructor(
    code: FsResizeErrorCode,
    message: string,
    options: { cause?: unknown; tool?: ToolReport; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, {
      cause: options.cause,
      details: { ...(options.details ?? {}), ...(options.tool ? { tool: options.tool } : {}) },
    });
    this.tool = options.tool;
  }
}

export function isFsResizeError(value: unknown): value is FsResizeError {
  return value instanceof FsResizeError;
}

/**
 * `error` with a stable code, for the entry points that promise one for every error (`voe
 * fsresize grow --json`, `voe flexvolume`): a VoeError as it is; anything else (a bug, a failure
 * voe did not expect) as FSRESIZE_UNEXPECTED_ERROR with the original message, and its errno code,
 * system call and path in `details` when it has them.
 */
export function asVoeError(error: unknown): VoeError {
  if (isVoeError(error)) return error;
  const errno = (error ?? {}) as { code?: unknown; syscall?: unknown; path?: unknown };
  const details = Object.fromEntries(
    (['code', 'syscall', 'path'] as const)
      .filter((key) => typeof errno[key] === 'string')
      .map((key) => [key, errno[key]]),
  );
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new FsResizeError(
    'FSRESIZE_UNEXPECTED_ERROR',
    `unexpected error: ${what} — voe did not expect this failure, so it cannot say whether anything was changed; check the device and retry, and report it`,
    { cause: error, details: Object.keys(details).length ? { cause: details } : {} },
  );
}
