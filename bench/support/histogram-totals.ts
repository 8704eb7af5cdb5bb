/** The `_sum` and `_count` of an unlabelled histogram in Prometheus text, 0 when absent. */
export function histogramTotals(text: string, name: string): { sum: number; count: number } {
  const read = (suffix: string): number => {
    const match = new RegExp(`^${name}_${suffix} (\\S+)$`, 'm').exec(text);
    return match ? Number(match[1]) : 0;
  };
  return { sum: read('sum'), count: read('count') };
}

/** What a histogram of seconds observed between two readings: how many, and their mean in milliseconds (0 when none). */
export function observedBetween(
  before: { sum: number; count: number },
  after: { sum: number; count: number },
): { count: number; meanMs: number } {
  const count = after.count - before.count;
  return { count, meanMs: count > 0 ? ((after.sum - before.sum) / count) * 1000 : 0 };
}
