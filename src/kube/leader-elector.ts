import type { Logger } from '../log/index.js';
import { apiErrorOf } from './api-error.js';
import { realClock, sleep, type Clock } from './clock.js';
import { KubeError, KubeErrorCode } from './kube-error.js';
import { decideLease, releasedRecord, type LeaseObservation } from './lease-decision.js';
import { microTime, type LeaseLock, type VersionedLease } from './lease-lock.js';

export interface LeaderCallbacks {
  /** We became leader; `signal` aborts when we stop leading. */
  onStartedLeading?: (signal: AbortSignal) => void | Promise<void>;
  /** We stopped leading (lost the lease or stop() was called). Awaited before the lease is released. */
  onStoppedLeading?: () => void | Promise<void>;
  /** The observed holder changed (including to ourselves). */
  onNewLeader?: (identity: string) => void;
}

export interface LeaderElectorOptions extends LeaderCallbacks {
  lock: LeaseLock;
  /** Unique per candidate (e.g. pod name + random suffix); <= 128 chars is wise. */
  identity: string;
  /** 15 s unless told. */
  leaseDurationMs?: number;
  /** 10 s unless told: a leader that cannot renew for this long steps down. Must be < leaseDuration. */
  renewDeadlineMs?: number;
  /** 2 s unless told: between attempts. Must be < renewDeadline. */
  retryPeriodMs?: number;
  /** Release the lease on stop() so the next candidate takes over at once; true unless told. */
  releaseOnStop?: boolean;
  clock?: Clock;
  /** Wall clock for the times written into the Lease. */
  wallClock?: () => Date;
  random?: () => number;
  logger?: Logger;
}

/**
 * Lease-based leader election with client-go semantics: optimistic create/replace on the Lease's
 * resourceVersion (409 = someone else won the race), expiry judged by the observer's own clock
 * (see decideLease), leaseTransitions incremented on takeover, renew every retryPeriod and step
 * down when no renew succeeded within renewDeadline, release on stop. Unlike client-go's Run,
 * after losing the lease the elector goes back to candidate; callers that cannot safely resume
 * should exit in onStoppedLeading.
 */
export class LeaderElector {
  readonly identity: string;
  readonly #o: Required<
    Pick<
      LeaderElectorOptions,
      'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'releaseOnStop'
    >
  > &
    LeaderElectorOptions;
  readonly #clock: Clock;
  readonly #stop = new AbortController();
  #observation: LeaseObservation | undefined;
  #lastSeen: VersionedLease | undefined;
  #reportedLeader: string | undefined;
  #leading = false;
  #running: Promise<void> | undefined;

  constructor(options: LeaderElectorOptions) {
    const o = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      releaseOnStop: true,
      ...options,
    };
    if (!o.identity)
      throw new KubeError(
        KubeErrorCode.LeaderElectionConfig,
        'leader election needs a non-empty identity',
      );
    if (!(o.leaseDurationMs > o.renewDeadlineMs))
      throw new KubeError(
        KubeErrorCode.LeaderElectionConfig,
        `leaseDuration (${o.leaseDurationMs} ms) must be greater than renewDeadline (${o.renewDeadlineMs} ms)`,
      );
    if (!(o.renewDeadlineMs > o.retryPeriodMs * 1.2))
      throw new KubeError(
        KubeErrorCode.LeaderElectionConfig,
        `renewDeadline (${o.renewDeadlineMs} ms) must be greater than 1.2 x retryPeriod (${o.retryPeriodMs} ms)`,
      );
    if (o.leaseDurationMs < 1000 || o.leaseDurationMs % 1000 !== 0)
      throw new KubeError(
        KubeErrorCode.LeaderElectionConfig,
        `leaseDuration must be a whole number of seconds (got ${o.leaseDurationMs} ms)`,
      );
    this.#o = o;
    this.identity = o.identity;
    this.#clock = o.clock ?? realClock;
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  /** Starts campaigning (idempotent); the promise resolves after stop() finished. */
  run(): Promise<void> {
    this.#running ??= this.#loop();
    return this.#running;
  }

  /** Stops campaigning; if leading, calls onStoppedLeading, then releases the lease. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  async #tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    const lock = this.#o.lock;
    const nowTime = microTime((this.#o.wallClock ?? (() => new Date()))());
    try {
      const current = await lock.get(timeoutMs);
      this.#lastSeen = current;
      const { decision, observation } = decideLease({
        current: current?.record,
        previous: this.#observation,
        identity: this.identity,
        now: this.#clock.now(),
        nowTime,
        leaseDurationSeconds: this.#o.leaseDurationMs / 1000,
      });
      this.#observation = observation;
      if (current) this.#report(current.record.holderIdentity);
      if (decision.action === 'wait') return false;
      const written =
        decision.action === 'create'
          ? await lock.create(decision.record, timeoutMs)
          : await lock.update(decision.record, current?.resourceVersion ?? '', timeoutMs);
      this.#lastSeen = written;
      this.#observation = { record: written.record, observedAt: this.#clock.now() };
      this.#report(this.identity);
      return true;
    } catch (err) {
      const api = apiErrorOf(err);
      if (api?.code === 409)
        this.#o.logger?.debug(
          { lease: lock.description },
          'lost a lease update race (409); will retry',
        );
      else
        this.#o.logger?.warn(
          { err, lease: lock.description },
          'lease get/update failed; will retry',
        );
      return false;
    }
  }

  #report(holder: string): void {
    if (holder === '' || holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    try {
      this.#o.onNewLeader?.(holder);
    } catch (err) {
      this.#o.logger?.error({ err }, 'onNewLeader threw');
    }
  }

  #jittered(ms: number): number {
    return ms * (1 + 0.2 * (this.#o.random ?? Math.random)());
  }

  async #loop(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      // campaign
      while (!signal.aborted && !(await this.#tryAcquireOrRenew(this.#o.renewDeadlineMs))) {
        await sleep(this.#clock, this.#jittered(this.#o.retryPeriodMs), signal);
      }
      if (signal.aborted) break;
      // lead
      this.#leading = true;
      const leading = new AbortController();
      this.#o.logger?.info(
        { lease: this.#o.lock.description, identity: this.identity },
        'became leader',
      );
      const report = (err: unknown): void =>
        this.#o.logger?.error({ err }, 'onStartedLeading threw');
      try {
        const r = this.#o.onStartedLeading?.(leading.signal);
        if (r instanceof Promise) r.catch(report);
      } catch (err) {
        report(err);
      }
      let lastRenew = this.#clock.now();
      for (;;) {
        await sleep(this.#clock, this.#o.retryPeriodMs, signal);
        if (signal.aborted) break;
        const remaining = this.#o.renewDeadlineMs - (this.#clock.now() - lastRenew);
        if (remaining > 0 && (await this.#tryAcquireOrRenew(remaining))) {
          lastRenew = this.#clock.now();
          continue;
        }
        if (this.#clock.now() - lastRenew >= this.#o.renewDeadlineMs) {
          this.#o.logger?.warn(
            { lease: this.#o.lock.description, identity: this.identity },
            'could not renew the lease within renewDeadline; stepping down',
          );
          break;
        }
      }
      this.#leading = false;
      leading.abort();
      try {
        await this.#o.onStoppedLeading?.();
      } catch (err) {
        this.#o.logger?.error({ err }, 'onStoppedLeading threw');
      }
      if (signal.aborted && this.#o.releaseOnStop) await this.#release();
    }
  }

  async #release(): Promise<void> {
    const seen = this.#lastSeen;
    if (!seen || seen.record.holderIdentity !== this.identity) return;
    try {
      const written = await this.#o.lock.update(
        releasedRecord(seen.record, microTime((this.#o.wallClock ?? (() => new Date()))())),
        seen.resourceVersion,
        this.#o.retryPeriodMs * 2,
      );
      this.#lastSeen = written;
      this.#o.logger?.info(
        { lease: this.#o.lock.description, identity: this.identity },
        'released the lease',
      );
    } catch (err) {
      this.#o.logger?.warn(
        { err, lease: this.#o.lock.description },
        'could not release the lease; others take over when it expires',
      );
    }
  }
}
