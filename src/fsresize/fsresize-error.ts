import { isVoeError, VoeError } from '../errors/index.js';

/** Stable codes of the filesystem-resize core; each one is documented in docs/errors.md. */
export type FsResizeErrorCode =
  | 'FSRESIZE_INVALID_ARGUMENT'
  | 'FSRESIZE_DEVICE_NOT_FOUND'
  | 'FSRESIZE_NOT_A_BLOCK_DEVICE'
  | 'FSRESIZE_DEVICE_EMPTY'
  | 'FSRESIZE_PARTITIONED'
  | 'FSRESIZE_UNSUPPORTED_FILESYSTEM'
  | 'FSRESIZE_NOT_MOUNTED'
  | 'FSRESIZE_MOUNT_MISMATCH'
  | 'FSRESIZE_MOUNT_HIDDEN'
  | 'FSRESIZE_DEVICE_IN_USE'
  | 'FSRESIZE_MOUNT_INACCESSIBLE'
  | 'FSRESIZE_DEVICE_TOO_SMALL'
  | 'FSRESIZE_MOUNT_READ_ONLY'
  | 'FSRESIZE_DEVICE_READ_ONLY'
  | 'FSRESIZE_DEVICE_SMALLER_THAN_FILESYSTEM'
  | 'FSRESIZE_EXT_32BIT_LIMIT'
  | 'FSRESIZE_EXT_BIGALLOC_OFFLINE'
  | 'FSRESIZE_DEVICE_CHANGED'
  | 'FSRESIZE_TOOL_MISSING'
  | 'FSRESIZE_PERMISSION_DENIED'
  | 'FSRESIZE_TOOL_FAILED'
  | 'FSRESIZE_FSCK_FAILED'
  | 'FSRESIZE_TIMEOUT'
  | 'FSRESIZE_UNEXPECTED_OUTPUT'
  | 'FSRESIZE_BUSY'
  | 'FSRESIZE_INTERRUPTED'
  | 'FSRESIZE_LOCK_FAILED'
  | 'FSRESIZE_DEVICE_IO'
  | 'FSRESIZE_TEMP_FILES_FAILED'
  | 'FSRESIZE_UNEXPECTED_ERROR';

/** What an external tool said when it failed; carried by tool-related errors. */
export interface ToolReport {
  tool: string;
  args: readonly string[];
  exitCode: number | null;
  signal: string | null;
  stderr: string;
}

/** An error of the filesystem-resize core. Tool failures carry the tool's stderr in `tool`. */
export class FsResizeError extends VoeError {
  declare readonly code: FsResizeErrorCode;
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
