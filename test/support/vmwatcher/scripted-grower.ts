/**
 * A GuestFilesystemGrower that answers from a script, for the tracker's tests: the guest-agent
 * runner cannot run here (no guest). It records each call (which VM and disk, plan or grow), and
 * can hold a growth until the test releases it, to see GuestFilesystemGrowing and the one growth
 * per VM.
 */
import type {
  GuestFilesystemGrower,
  GuestGrowthOutcome,
  GuestGrowthPlanResult,
  GuestGrowthTarget,
} from '../../../src/vmwatcher/guest-filesystem-grower.js';

/** Rejects once `signal` aborts; never settles without one. */
function aborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (!signal) return;
    const stop = () => reject(new Error('the growth was stopped: the tracker stops leading'));
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}

export interface GrowerCall {
  kind: 'plan' | 'grow';
  vm: string;
  guestDevice: string;
  volume: string;
}

export class ScriptedGrower implements GuestFilesystemGrower {
  readonly calls: GrowerCall[] = [];
  /** What plan() answers; an Error is thrown. */
  planAnswer: GuestGrowthPlanResult | Error = { kind: 'nothing-to-do' };
  /** What grow() answers; an Error is thrown. */
  growAnswer: GuestGrowthOutcome | Error = { kind: 'nothing-to-do' };
  /** Growths running now, and the most that ran at once. */
  running = 0;
  mostAtOnce = 0;
  #held: Promise<void> | undefined;
  #release: (() => void) | undefined;

  /** Holds every grow() until release(). */
  hold(): void {
    this.#held = new Promise((resolve) => (this.#release = resolve));
  }

  release(): void {
    this.#release?.();
    this.#held = undefined;
  }

  async plan(target: GuestGrowthTarget): Promise<GuestGrowthPlanResult> {
    this.#record('plan', target);
    if (this.planAnswer instanceof Error) throw this.planAnswer;
    return this.planAnswer;
  }

  /** Held growths end when `signal` aborts (the tracker stops leading), as the runner's do. */
  async grow(target: GuestGrowthTarget, signal?: AbortSignal): Promise<GuestGrowthOutcome> {
    this.#record('grow', target);
    this.running += 1;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
    try {
      if (this.#held) await Promise.race([this.#held, aborted(signal)]);
      if (this.growAnswer instanceof Error) throw this.growAnswer;
      return this.growAnswer;
    } finally {
      this.running -= 1;
    }
  }

  #record(kind: GrowerCall['kind'], target: GuestGrowthTarget): void {
    this.calls.push({
      kind,
      vm: `${target.vmi.metadata?.namespace}/${target.vmi.metadata?.name}`,
      guestDevice: target.guestDevice,
      volume: target.volumeName,
    });
  }
}
