import { realClock, type Clock } from './clock.js';
import {
  ItemExponentialRateLimiter,
  type ItemExponentialOptions,
  type RateLimiter,
} from './rate-limiter.js';

export interface WorkQueueOptions<K> extends ItemExponentialOptions {
  /** Replaces the per-item exponential limiter built from baseDelayMs/maxDelayMs. */
  rateLimiter?: RateLimiter<K>;
  clock?: Clock;
}

/**
 * A rate-limited work queue with client-go workqueue semantics:
 * - a key is queued at most once (adds while queued are merged);
 * - a key is handed to one worker at a time: re-added while being processed, it is queued
 *   again only when that worker calls `done`;
 * - `addRateLimited` waits per-item exponential backoff (1 s .. 5 min unless told), `forget`
 *   resets it, `addAfter` waits a given delay (the earliest pending delay wins);
 * - `shutDown` stops accepting keys, drops delayed ones, lets workers drain what is queued, and
 *   resolves once nothing is queued or processing; no timers remain afterwards.
 */
export class WorkQueue<K = string> {
  readonly #queue: K[] = [];
  readonly #dirty = new Set<K>();
  readonly #processing = new Set<K>();
  readonly #waiting = new Map<K, { readyAt: number; handle: unknown }>();
  readonly #getters: Array<(key: K | undefined) => void> = [];
  readonly #drainWaiters: Array<() => void> = [];
  readonly #limiter: RateLimiter<K>;
  readonly #clock: Clock;
  #shuttingDown = false;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.#limiter = options.rateLimiter ?? new ItemExponentialRateLimiter<K>(options);
    this.#clock = options.clock ?? realClock;
  }

  /** Queues `key` now (no-op when already queued or after shutDown). */
  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    this.#dispatch(key);
  }

  /** Hands a dirty key to a waiting worker, or queues it. */
  #dispatch(key: K): void {
    const getter = this.#getters.shift();
    if (getter) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      getter(key);
    } else {
      this.#queue.push(key);
    }
  }

  /** Queues `key` after `delayMs`; when already waiting, the earlier moment wins. */
  addAfter(key: K, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const readyAt = this.#clock.now() + delayMs;
    const existing = this.#waiting.get(key);
    if (existing && existing.readyAt <= readyAt) return;
    if (existing) this.#clock.clearTimeout(existing.handle);
    const handle = this.#clock.setTimeout(() => {
      this.#waiting.delete(key);
      this.add(key);
    }, delayMs);
    this.#waiting.set(key, { readyAt, handle });
  }

  /** Queues `key` after its per-item backoff and counts a failure. Returns the delay used. */
  addRateLimited(key: K): number {
    const delay = this.#limiter.when(key);
    this.addAfter(key, delay);
    return delay;
  }

  /** Clears `key`'s failure history (call after a success). */
  forget(key: K): void {
    this.#limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.#limiter.numRequeues(key);
  }

  /**
   * Next key to process; the caller owns it until `done(key)`. Resolves `undefined` once the
   * queue is shut down and empty (the worker should exit).
   */
  get(): Promise<K | undefined> {
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      return Promise.resolve(key);
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks `key` processed; if it was re-added meanwhile it is queued again now. */
  done(key: K): void {
    if (!this.#processing.delete(key)) return;
    if (this.#dirty.has(key)) this.#dispatch(key);
    this.#checkDrained();
  }

  /** Keys queued and ready (not counting delayed or processing ones). */
  get length(): number {
    return this.#queue.length;
  }

  get processingCount(): number {
    return this.#processing.size;
  }

  get delayedCount(): number {
    return this.#waiting.size;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Stops accepting keys and cancels delayed ones. With `drain` (default) resolves after workers
   * processed every queued key and finished the ones in progress; without it queued keys are
   * dropped and it resolves when in-progress keys are done.
   */
  shutDown(options: { drain?: boolean } = {}): Promise<void> {
    this.#shuttingDown = true;
    for (const { handle } of this.#waiting.values()) this.#clock.clearTimeout(handle);
    this.#waiting.clear();
    if (options.drain === false) {
      for (const k of this.#queue) this.#dirty.delete(k);
      this.#queue.length = 0;
    }
    for (const getter of this.#getters.splice(0)) getter(undefined);
    return new Promise((resolve) => {
      this.#drainWaiters.push(resolve);
      this.#checkDrained();
    });
  }

  #checkDrained(): void {
    if (!this.#shuttingDown || this.#queue.length > 0 || this.#processing.size > 0) return;
    for (const w of this.#drainWaiters.splice(0)) w();
  }
}
