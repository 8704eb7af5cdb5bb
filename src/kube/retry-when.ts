import pRetry, { AbortError } from 'p-retry';

export interface RetryOptions {
  /** Attempts after the first; 5 unless told. */
  retries?: number;
  /** First backoff; 100 ms unless told (doubling, jittered, capped at maxTimeoutMs). */
  minTimeoutMs?: number;
  /** Longest backoff; 2 s unless told. */
  maxTimeoutMs?: number;
  /** Aborting it ends the retries at once: rejects with its reason (a call under way is not cut). */
  signal?: AbortSignal;
}

/**
 * Runs `fn`, and again (p-retry, jittered exponential backoff) while it fails with an error
 * `retryable` accepts; any other error is thrown at once. After the last attempt, its error.
 */
export async function retryWhen<T>(
  retryable: (error: unknown) => boolean,
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  return pRetry(
    async (attempt) => {
      try {
        return await fn(attempt);
      } catch (error) {
        if (retryable(error)) throw error;
        throw new AbortError(error instanceof Error ? error : new Error(String(error)));
      }
    },
    {
      retries: options.retries ?? 5,
      minTimeout: options.minTimeoutMs ?? 100,
      maxTimeout: options.maxTimeoutMs ?? 2_000,
      randomize: true,
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
}
