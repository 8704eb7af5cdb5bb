import type { KubeClientConfig } from './kube-client-config.js';
import { isConflict } from './api-error.js';
import { KubeError, KubeErrorCode } from './kube-error.js';
import { requestJson } from './kube-request.js';
import { resourcePath, type ResourceRef } from './resource-ref.js';
import { retryWhen, type RetryOptions } from './retry-when.js';

export type NamedResourceRef = ResourceRef & { name: string };

/** How often and how far apart retryOnConflict tries again (see RetryOptions). */
export type ConflictRetryOptions = RetryOptions;

/**
 * Retries `fn` while it fails with 409 Conflict (p-retry, jittered exponential backoff). Any other
 * error is thrown at once; running out of attempts throws KUBE_CONFLICT_RETRIES_EXHAUSTED.
 */
export async function retryOnConflict<T>(
  what: string,
  fn: (attempt: number) => Promise<T>,
  options: ConflictRetryOptions = {},
): Promise<T> {
  const retries = options.retries ?? 5;
  try {
    return await retryWhen(isConflict, fn, { ...options, retries });
  } catch (err) {
    if (isConflict(err)) {
      throw new KubeError(
        KubeErrorCode.ConflictRetriesExhausted,
        `${what}: still conflicting after ${retries + 1} attempts (someone else keeps writing the object); retry later`,
        { cause: err },
      );
    }
    throw err;
  }
}

/**
 * Read-modify-write with optimistic concurrency: `get` the current object, `mutate` returns the
 * object to write (or undefined: nothing to do), `replace` writes it (carrying its
 * metadata.resourceVersion, so the API server answers 409 when it changed meanwhile). On 409 the
 * whole cycle starts again from a fresh `get`.
 */
export async function updateWithRetry<T>(
  get: () => Promise<T>,
  mutate: (current: T) => T | undefined | Promise<T | undefined>,
  replace: (next: T) => Promise<T>,
  options: ConflictRetryOptions & { what?: string } = {},
): Promise<T> {
  return retryOnConflict(
    options.what ?? 'update',
    async () => {
      const current = await get();
      const next = await mutate(current);
      return next === undefined ? current : replace(next);
    },
    options,
  );
}

/**
 * JSON merge patch (RFC 7386, `application/merge-patch+json`) on a core or custom resource.
 * A patch that carries metadata.resourceVersion is a conditional write (409 when stale): with
 * `retry` the patch is recomputed from `patch(attempt)` on each conflict.
 */
export async function patchMerge<T = Record<string, unknown>>(
  kc: KubeClientConfig,
  ref: NamedResourceRef,
  patch: object | ((attempt: number) => Promise<object> | object),
  options: ConflictRetryOptions & { subresource?: string } = {},
): Promise<T> {
  const path = resourcePath(ref, options.subresource);
  return retryOnConflict(
    `merge patch ${path}`,
    async (attempt) =>
      requestJson<T>(kc, {
        method: 'PATCH',
        path,
        contentType: 'application/merge-patch+json',
        body: typeof patch === 'function' ? await patch(attempt) : patch,
      }),
    options,
  );
}

/** Merge patch on the `/status` subresource (the main resource's spec is untouched). */
export function patchStatus<T = Record<string, unknown>>(
  kc: KubeClientConfig,
  ref: NamedResourceRef,
  patch: object | ((attempt: number) => Promise<object> | object),
  options: ConflictRetryOptions = {},
): Promise<T> {
  return patchMerge<T>(kc, ref, patch, { ...options, subresource: 'status' });
}

/** GET one object as JSON (core or custom). */
export function getObject<T = Record<string, unknown>>(
  kc: KubeClientConfig,
  ref: NamedResourceRef,
): Promise<T> {
  return requestJson<T>(kc, { method: 'GET', path: resourcePath(ref) });
}

/** PUT (replace) one object; pass its metadata.resourceVersion for an optimistic write. */
export function replaceObject<T = Record<string, unknown>>(
  kc: KubeClientConfig,
  ref: NamedResourceRef,
  body: T,
  subresource?: string,
): Promise<T> {
  return requestJson<T>(kc, { method: 'PUT', path: resourcePath(ref, subresource), body });
}
