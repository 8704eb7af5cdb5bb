/**
 * The root of every error this project throws on purpose. `code` is a stable,
 * machine-readable string (documented in docs/errors.md); `message` says what
 * happened and what the user can do about it.
 */
export class VoeError extends Error {
  readonly code: string;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: string,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = Object.freeze({ ...(options.details ?? {}) });
  }
}

export function isVoeError(value: unknown): value is VoeError {
  return value instanceof VoeError;
}
