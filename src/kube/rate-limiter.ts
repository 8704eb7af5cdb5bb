import { exponentialDelay } from './backoff.js';

/** Decides how long an item waits before its next retry (client-go workqueue.RateLimiter). */
export interface RateLimiter<K> {
  /** Delay for the next retry of `key`; counts one more failure. */
  when(key: K): number;
  /** Clears the failure history of `key` (call on success). */
  forget(key: K): void;
  /** Failures counted for `key` since the last forget. */
  numRequeues(key: K): number;
}

export interface ItemExponentialOptions {
  /** Delay after the first failure; 1 s unless told. */
  baseDelayMs?: number;
  /** Cap; 5 min unless told. */
  maxDelayMs?: number;
}

/** Per-item exponential backoff: base, 2*base, 4*base ... capped at max (client-go's ItemExponentialFailureRateLimiter). */
export class ItemExponentialRateLimiter<K> implements RateLimiter<K> {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly #failures = new Map<K, number>();

  constructor(options: ItemExponentialOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 5 * 60_000;
  }

  when(key: K): number {
    const n = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, n);
    return exponentialDelay(n, { baseMs: this.baseDelayMs, maxMs: this.maxDelayMs });
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.#failures.get(key) ?? 0;
  }
}
