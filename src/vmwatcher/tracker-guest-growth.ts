import type { Logger } from '../log/index.js';
import type { Namespace, VirtualMachine } from '../model/index.js';
import type {
  GuestFilesystemGrower,
  GuestGrowthOutcome,
  GuestGrowthPlanResult,
  GuestGrowthTarget,
} from './guest-filesystem-grower.js';
import { guestGrowthOptIn, type GuestGrowthOptIn } from './guest-growth-opt-in.js';
import { VmLock } from '../guest-grow/index.js';
import type { GuestGrowthUnreadable } from './stage/guest-growth-verdict.js';

export interface TrackerGuestGrowthOptions {
  grower: GuestFilesystemGrower;
  /** The cluster-wide switch (voe watch --guest-filesystem-growth): off, no VM opts in. */
  enabled: boolean;
  /** The cached Namespace of that name (its opt-in annotation). */
  namespace: (name: string) => Namespace | undefined;
  logger?: Logger;
}

/**
 * The tracker's side of guest filesystem growth (docs/guest-growth.md "In the tracker"): whether
 * a VM opted in, the plan for one that did not (its commands for the message), and the growth of
 * one that did, one per VM at a time. A grower that throws gives `unreadable` with its message.
 */
export class TrackerGuestGrowth {
  readonly #o: TrackerGuestGrowthOptions;
  readonly #perVm = new VmLock();

  constructor(options: TrackerGuestGrowthOptions) {
    this.#o = options;
  }

  optIn(vm: VirtualMachine | undefined, namespace: string, probed: boolean): GuestGrowthOptIn {
    return guestGrowthOptIn({
      enabled: this.#o.enabled,
      probed,
      vm,
      namespace: this.#o.namespace(namespace),
    });
  }

  async plan(
    target: GuestGrowthTarget,
    signal?: AbortSignal,
  ): Promise<GuestGrowthPlanResult | GuestGrowthUnreadable> {
    return this.#unlessThrown(target, 'plan', () => this.#o.grower.plan(target, signal));
  }

  /** Grows the guest's filesystem on the target's disk, after any growth of the same VM ended. */
  async grow(
    target: GuestGrowthTarget,
    signal?: AbortSignal,
  ): Promise<GuestGrowthOutcome | GuestGrowthUnreadable> {
    const vm = `${target.vmi.metadata?.namespace ?? ''}/${target.vmi.metadata?.uid ?? target.vmi.metadata?.name ?? ''}`;
    return this.#perVm.run(vm, () =>
      this.#unlessThrown(target, 'grow', () => this.#o.grower.grow(target, signal)),
    );
  }

  async #unlessThrown<T>(
    target: GuestGrowthTarget,
    what: string,
    call: () => Promise<T>,
  ): Promise<T | GuestGrowthUnreadable> {
    try {
      return await call();
    } catch (error) {
      this.#o.logger?.warn(
        { err: error, pvc: `${target.vmi.metadata?.namespace}/${target.claimName}` },
        `guest filesystem ${what} failed: the guest could not be read`,
      );
      return { kind: 'unreadable', reason: (error as Error).message };
    }
  }
}
