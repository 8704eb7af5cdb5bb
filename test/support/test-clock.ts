import { createClock, type TimerId } from '@sinonjs/fake-timers';
import type { Clock } from '../../src/kube/index.js';
import { onCleanup } from './cleanup.js';

/**
 * The Clock of src/kube for tests, on a clock of @sinonjs/fake-timers. Time starts at 0 and stands
 * still: it moves when the test says so (`advance`), or with real time from `followRealTime()`
 * until `standStill()` (the test that lets an informer talk to a real API server, then holds its
 * backoff while it restarts that server).
 */
export class TestClock implements Clock {
  readonly #clock = createClock(0);
  /** Pending timers: when each is due (clock ms). */
  readonly #due = new Map<unknown, number>();
  /** Inside a timer's callback: fake-timers then starts a 0 ms timer 1 ms later, as Node does. */
  #firing = false;

  now(): number {
    return this.#clock.now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    // Whole milliseconds (rounded up: a timer never fires early), the form fake-timers keeps.
    const delay = Math.min(Math.max(0, Math.ceil(ms)), MAX_DELAY_MS);
    const handle: unknown = this.#clock.setTimeout(() => {
      this.#due.delete(handle);
      this.#firing = true;
      try {
        fn();
      } finally {
        this.#firing = false;
      }
    }, delay);
    this.#due.set(handle, this.#clock.now + (delay === 0 && this.#firing ? 1 : delay));
    return handle;
  }

  clearTimeout(handle: unknown): void {
    if (!this.#due.delete(handle)) return;
    this.#clock.clearTimeout(handle as TimerId);
  }

  get pendingTimers(): number {
    return this.#due.size;
  }

  /** How long each pending timer still has to run, in ms, in the order they were set. */
  get pendingDelays(): number[] {
    return [...this.#due.values()].map((at) => at - this.#clock.now);
  }

  /** Moves time forward by `ms`, firing due timers in order and letting promises settle in between. */
  async advance(ms: number): Promise<void> {
    const target = this.#clock.now + ms;
    for (;;) {
      await settle();
      const next = Math.min(...this.#due.values());
      if (!(next <= target)) break;
      this.#clock.next();
    }
    this.#clock.tick(Math.max(0, target - this.#clock.now));
    await settle();
  }

  /** Time follows real time (moved every `stepMs`) until `standStill()` or the end of the test. */
  followRealTime(stepMs = 20): void {
    this.#clock.setTickMode({ mode: 'interval', delta: stepMs });
    onCleanup(() => this.standStill());
  }

  /** Time stops: timers wait until the test moves it again. */
  standStill(): void {
    this.#clock.setTickMode({ mode: 'manual' });
  }
}

/** The longest delay a timer takes (Node's, and fake-timers' limit). */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** Lets queued promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}
