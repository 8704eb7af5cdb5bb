/** Milliseconds per unit of Go's time.ParseDuration. */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A duration as Go's time.ParseDuration reads it ("90s", "2m", "1m30s", "1.5h", "500ms", "+1s"),
 * in milliseconds; undefined when it is not one. A negative one is not accepted (a timeout is
 * never negative).
 */
export function parseGoDuration(input: string): number | undefined {
  const text = input.startsWith('+') ? input.slice(1) : input;
  if (text === '0') return 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy)];
  if (parts.length === 0 || parts.reduce((n, part) => n + part[0].length, 0) !== text.length)
    return undefined;
  return parts.reduce(
    (ms, part) => ms + Number(part[1]) * (UNIT_MS[part[2] as string] as number),
    0,
  );
}
