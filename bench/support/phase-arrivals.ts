import type { VolumeExpansion } from '../../src/vmwatcher/index.js';

/** When each VolumeExpansion was first seen in each phase (performance.now()), from a watch. */
export class PhaseArrivals {
  readonly #seen = new Map<string, number>();
  readonly #waiting = new Map<string, Array<(at: number) => void>>();

  static key(namespace: string, expansion: string, phase: string): string {
    return `${namespace}/${expansion}/${phase}`;
  }

  /** The watch's add and update handler. */
  readonly note = (expansion: VolumeExpansion): void => {
    const key = PhaseArrivals.key(
      expansion.metadata?.namespace ?? '',
      expansion.metadata?.name ?? '',
      expansion.status?.phase ?? '',
    );
    if (this.#seen.has(key)) return;
    const at = performance.now();
    this.#seen.set(key, at);
    for (const resolve of this.#waiting.get(key) ?? []) resolve(at);
    this.#waiting.delete(key);
  };

  /** Resolves with the arrival time of `key`, at once when it arrived already. */
  arrived(key: string): Promise<number> {
    const at = this.#seen.get(key);
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => {
      const list = this.#waiting.get(key) ?? [];
      list.push(resolve);
      this.#waiting.set(key, list);
    });
  }
}
