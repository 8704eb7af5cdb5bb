/**
 * The level-triggered loop of a host actor, as a controller's work queue runs it: every kick marks
 * the world dirty, one pass at a time reconciles everything the actor sees, a pass that throws is
 * recorded and retried 200 ms later, and kicks during a pass run one more pass.
 */
export class ReconcileLoop {
  readonly #reconcile: () => Promise<void>;
  readonly #onError: (error: unknown) => void;
  #running: Promise<void> = Promise.resolve();
  #dirty = false;
  #busy = false;
  #stopped = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(reconcile: () => Promise<void>, onError: (error: unknown) => void) {
    this.#reconcile = reconcile;
    this.#onError = onError;
  }

  kick(): void {
    if (this.#stopped) return;
    this.#dirty = true;
    if (this.#busy) return;
    this.#busy = true;
    this.#running = (async () => {
      try {
        while (this.#dirty && !this.#stopped) {
          this.#dirty = false;
          try {
            await this.#reconcile();
          } catch (error) {
            this.#onError(error);
            clearTimeout(this.#retry);
            this.#retry = setTimeout(() => this.kick(), 200);
          }
        }
      } finally {
        this.#busy = false;
      }
    })();
  }

  /** Resolves once every kick so far has been reconciled. */
  async settled(): Promise<void> {
    for (;;) {
      const running = this.#running;
      await running;
      if (running === this.#running && !this.#dirty && !this.#busy) return;
    }
  }

  /** No pass after this one; resolves once the running pass ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    await this.#running.catch(() => undefined);
  }
}
