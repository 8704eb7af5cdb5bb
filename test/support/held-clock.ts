import { realClock, type Clock } from '../../src/kube/index.js';

/** Real time, except that while `hold()` is on, new timers wait until `release()`. */
export class HeldClock implements Clock {
  #held = false;
  readonly #waiting = new Map<number, () => void>();
  #seq = 0;

  now(): number {
    return realClock.now();
  }

  setTimeout(fn: () => void, ms: number): unknown {
    if (!this.#held) return { real: realClock.setTimeout(fn, ms) };
    const id = ++this.#seq;
    this.#waiting.set(id, fn);
    return { held: id };
  }

  clearTimeout(handle: unknown): void {
    const h = handle as { real?: unknown; held?: number };
    if (h.held !== undefined) this.#waiting.delete(h.held);
    else realClock.clearTimeout(h.real);
  }

  hold(): void {
    this.#held = true;
  }

  get heldTimers(): number {
    return this.#waiting.size;
  }

  release(): void {
    this.#held = false;
    const fns = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const fn of fns) fn();
  }
}

/** Polls `check` until it returns true (or throws the last assertion error after `timeoutMs`). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
