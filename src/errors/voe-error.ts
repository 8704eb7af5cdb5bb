/**
 * The root of every error this project throws on purpose. `code` is a stable,
 * machine-readable string, one of `C`: each subclass takes the codes of a const object in its own
 * file (every one documented in docs/errors.md); `message` says what happened and what the user
 * can do about it.
 */
export class VoeError<C extends string = string> extends Error {
  readonly code: C;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: C,
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
