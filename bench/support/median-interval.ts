import { seededRandom } from './cluster-fixtures.js';

/** The median of `values` (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface MedianInterval {
  median: number;
  /** Bounds of the interval that holds the median with the given confidence (percentile bootstrap). */
  low: number;
  high: number;
  confidence: number;
}

/**
 * The median of `values` and a percentile-bootstrap interval for it: `resamples` samples of the
 * same size drawn with replacement, their medians sorted, the (1 - confidence) / 2 quantiles at
 * each end taken. Seeded, so the same values always give the same interval. It says how far a
 * benchmark's median could move in another run of the same size on the same machine, so a run can
 * tell "at the target" from "within the noise around it".
 */
export function medianInterval(
  values: readonly number[],
  options: { confidence?: number; resamples?: number; seed?: number } = {},
): MedianInterval {
  const confidence = options.confidence ?? 0.95;
  const resamples = options.resamples ?? 10_000;
  const center = median(values);
  if (values.length === 0) return { median: center, low: Number.NaN, high: Number.NaN, confidence };
  const random = seededRandom(options.seed ?? 1);
  const sample = new Array<number>(values.length);
  const medians = new Float64Array(resamples);
  for (let r = 0; r < resamples; r += 1) {
    for (let i = 0; i < values.length; i += 1)
      sample[i] = values[Math.floor(random() * values.length)]!;
    medians[r] = median(sample);
  }
  medians.sort();
  const tail = (1 - confidence) / 2;
  const at = (q: number): number =>
    medians[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))]!;
  return { median: center, low: at(tail), high: at(1 - tail), confidence };
}
