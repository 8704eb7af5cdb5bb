import { formatBytes } from './format-bytes.js';

/**
 * Two sizes one message compares, formatted: formatBytes each, and with the exact bytes too when
 * those read the same although the sizes differ ("100.0 MiB (104857088 bytes)" against "100.0 MiB
 * (104857600 bytes)"), so that no message says a size is smaller than, or grew to, an equal one.
 */
export function formatBytePair(first: number, second: number): [string, string] {
  const a = formatBytes(first);
  const b = formatBytes(second);
  if (a !== b || first === second) return [a, b];
  return [`${a} (${first} bytes)`, `${b} (${second} bytes)`];
}
