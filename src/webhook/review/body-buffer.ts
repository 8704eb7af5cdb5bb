/**
 * A request body gathered in one buffer, at most `limit` bytes: the first chunk as it came (the
 * usual case: the whole review in one TLS record), later ones copied into one buffer grown to the
 * declared length or geometrically. Keeping every chunk instead would let a body sent a byte at a
 * time cost ~190 bytes of heap per byte (a Buffer object each).
 */
export interface BodyBuffer {
  /** Adds a chunk; false (and the body dropped) when it would pass the limit. */
  add(chunk: Buffer): boolean;
  /** The body as utf-8 text; undefined when it is empty (or dropped). */
  text(): string | undefined;
  /** Lets the body go. */
  release(): void;
}

/** `declared` is the request's content-length (NaN or 0 when not given). */
export function createBodyBuffer(limit: number, declared: number): BodyBuffer {
  let body: Buffer | undefined;
  let owned = false;
  let size = 0;
  return {
    add(chunk) {
      if (size + chunk.length > limit) {
        body = undefined;
        return false;
      }
      if (body === undefined) {
        body = chunk;
      } else {
        if (!owned || size + chunk.length > body.length) {
          const wanted = Math.max(
            size + chunk.length,
            declared > 0 ? declared : 0,
            Math.min(size * 2, limit),
            16 * 1024,
          );
          const grown = Buffer.allocUnsafe(Math.min(wanted, limit));
          body.copy(grown, 0, 0, size);
          body = grown;
          owned = true;
        }
        chunk.copy(body, size);
      }
      size += chunk.length;
      return true;
    },
    text() {
      return size === 0 || body === undefined ? undefined : body.toString('utf8', 0, size);
    },
    release() {
      body = undefined;
    },
  };
}
