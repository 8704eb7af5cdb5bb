import { CsiError } from '../errors/csi-error.js';

/**
 * One operation per volume at a time, as CSI drivers answer concurrent calls: a call on a volume
 * that is busy is answered ABORTED at once (CSI_OPERATION_PENDING) and the CO retries it later,
 * rather than queueing behind the running one.
 */
export class VolumeLocks {
  readonly #busy = new Map<string, string>();

  /** Takes the volume's lock for `operation`; returns its release. Throws CSI_OPERATION_PENDING when held. */
  acquire(volumeId: string, operation: string): () => void {
    const holder = this.#busy.get(volumeId);
    if (holder !== undefined)
      throw new CsiError(
        'CSI_OPERATION_PENDING',
        `${operation} of volume ${volumeId}: ${holder} of the same volume is still running; retry later`,
      );
    this.#busy.set(volumeId, operation);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#busy.delete(volumeId);
    };
  }

  /** Runs `fn` under the volume's lock. */
  async run<T>(volumeId: string, operation: string, fn: () => Promise<T>): Promise<T> {
    const release = this.acquire(volumeId, operation);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  get size(): number {
    return this.#busy.size;
  }
}
