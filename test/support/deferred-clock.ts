import { realClock, type Clock } from '../../src/kube/index.js';

interface Timer {
  fn: () => void;
  due: number;
  real?: unknown;
}

/**
 * Real time, except that a timer set while `hold()` is on runs only once its delay has passed and
 * `release()` was called: a deadline that passes no sooner than real time and no sooner than the
 * test allows (e.g. once it has seen what the code under test had to report before it), however
 * slowly the processes it waits for start on a loaded machine.
 */
export class DeferredClock implements Clock {
  #held = false;
  readonly #waiting = new Set<Timer>();

  now(): number {
    return realClock.now();
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer: Timer = { fn, due: realClock.now() + ms };
    if (this.#held) this.#waiting.add(timer);
    else timer.real = realClock.setTimeout(fn, ms);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    const timer = handle as Timer | undefined;
    if (!timer) return;
    this.#waiting.delete(timer);
    realClock.clearTimeout(timer.real);
  }

  /** Timers set from now on wait for release(). */
  hold(): void {
    this.#held = true;
  }

  /** How many timers wait for release(). */
  get heldTimers(): number {
    return this.#waiting.size;
  }

  /** Each waiting timer runs once its delay has passed (at once if it has); timers set from now on run in real time. */
  release(): void {
    this.#held = false;
    for (const timer of this.#waiting)
      timer.real = realClock.setTimeout(timer.fn, timer.due - realClock.now());
    this.#waiting.clear();
  }
}
