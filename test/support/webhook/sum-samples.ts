/**
 * Sum of the samples of `name` in Prometheus text exposition `text` whose labels include all of
 * `labels` (e.g. voe_webhook_requests_total{webhook="setting"} over every decision and reason).
 * Reads what prom-client writes: one sample per line, `name{l="v",...} value`, label values with
 * `\\`, `\"` and `\n` escaped.
 */
export function sumSamples(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' '))
      continue;
    const found = new Map<string, string>();
    let rest = line.slice(name.length);
    if (rest.startsWith('{')) {
      const end = labelsEnd(rest);
      if (end < 0) continue;
      for (const match of rest
        .slice(1, end)
        .matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
        found.set(
          match[1]!,
          match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)),
        );
      }
      rest = rest.slice(end + 1);
    }
    if (!Object.entries(labels).every(([key, value]) => found.get(key) === value)) continue;
    const value = Number(rest.trim().split(/\s+/)[0]);
    if (Number.isFinite(value)) total += value;
  }
  return total;
}

/** Index of the `}` closing the label set that `text` starts with (quotes and escapes respected), or -1. */
function labelsEnd(text: string): number {
  let quoted = false;
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === '}') {
      return i;
    }
  }
  return -1;
}
