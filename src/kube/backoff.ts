export interface BackoffOptions {
  /** First delay in ms. */
  baseMs: number;
  /** Upper bound in ms. */
  maxMs: number;
  /** Multiplier per attempt; 2 unless told. */
  factor?: number;
}

/** Exponential delay for the n-th failure (n >= 1): base * factor^(n-1), capped at max. */
export function exponentialDelay(failures: number, opts: BackoffOptions): number {
  const factor = opts.factor ?? 2;
  if (failures <= 0) return 0;
  const raw = opts.baseMs * Math.pow(factor, failures - 1);
  return Number.isFinite(raw) ? Math.min(raw, opts.maxMs) : opts.maxMs;
}

/**
 * Jittered exponential delay (as client-go's jittered backoff / kubernetes-fluent-client's
 * watcher): a uniformly random value in [delay/2, delay], so that many clients restarting after
 * the same apiserver outage do not reconnect in lock-step. `random` is injectable for tests.
 */
export function jitteredDelay(
  failures: number,
  opts: BackoffOptions,
  random: () => number = Math.random,
): number {
  const d = exponentialDelay(failures, opts);
  return d / 2 + random() * (d / 2);
}
