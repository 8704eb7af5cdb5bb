/** A duration as Go prints a rounded one, to the second: `45s`, `10m`, `1h5m`, `2h0m30s`. */
export function formatDuration(ms: number): string {
  let seconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds > 0 ? `${seconds}s` : ''}`;
  if (minutes > 0) return `${minutes}m${seconds > 0 ? `${seconds}s` : ''}`;
  return `${seconds}s`;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:(\d+(?:\.\d+)?)(ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** Reads `10m`, `90s`, `1h30m`, `500ms` (Go's units up to hours); undefined when it is not one or is 0. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DURATION.test(trimmed)) return undefined;
  let ms = 0;
  for (const [, value, unit] of trimmed.matchAll(PART)) ms += Number(value) * UNIT_MS[unit!]!;
  return ms > 0 && Number.isFinite(ms) ? Math.round(ms) : undefined;
}
