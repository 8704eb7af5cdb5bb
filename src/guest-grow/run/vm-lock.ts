/**
 * One guest operation per VM at a time, within this process: `run` waits for the operation of
 * the same VM under way (whatever its outcome), then runs `operation`. Keyed by the VM's
 * `namespace/name`.
 */
export class VmLock {
  readonly #running = new Map<string, Promise<unknown>>();

  async run<T>(vm: string, operation: () => Promise<T>): Promise<T> {
    const before = this.#running.get(vm) ?? Promise.resolve();
    const mine = before.then(operation, operation);
    this.#running.set(vm, mine);
    try {
      return await mine;
    } finally {
      if (this.#running.get(vm) === mine) this.#running.delete(vm);
    }
  }
}

/** The lock runGuestGrowth takes unless given another: one per process. */
export const PROCESS_VM_LOCK = new VmLock();
