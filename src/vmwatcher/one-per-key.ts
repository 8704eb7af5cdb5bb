/**
 * Runs one task per key at a time, in the order they were asked for; tasks of different keys
 * run at once (the tracker's guest growth: one guest operation per VM).
 */
export class OnePerKey {
  readonly #running = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.#running.get(key) ?? Promise.resolve();
    const run = before.then(task, task);
    this.#running.set(key, run);
    try {
      return await run;
    } finally {
      if (this.#running.get(key) === run) this.#running.delete(key);
    }
  }
}
