/**
 * Benchmark reference only (bench/webhook.bench.ts, server mode "bare-scan"): walks a JSON text
 * once and says whether it is one well-formed JSON value, building no objects and no strings.
 * It shows what the cheapest conceivable decoding of an AdmissionReview costs, next to
 * JSON.parse. It checks structure, literals, numbers and string escapes, which is enough
 * for the benchmark's own reviews; it is not the webhook's parser (that is JSON.parse).
 */
const QUOTE = 0x22;
const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE_RE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

const enum Expect { Value, KeyOrClose, Colon, CommaOrClose }

/** End index of the string whose opening quote is at `start`, or -1. */
function skipString(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return -1;
    const backslash = text.indexOf('\\', i);
    const end = backslash >= 0 && backslash < quote ? backslash : quote;
    for (let j = i; j < end; j++) if (text.charCodeAt(j) < 0x20) return -1;
    if (end === backslash) {
      ESCAPE_RE.lastIndex = backslash;
      if (!ESCAPE_RE.test(text)) return -1;
      i = ESCAPE_RE.lastIndex;
      continue;
    }
    return quote + 1;
  }
}

export function scanJson(text: string): boolean {
  const containers: number[] = []; // 1 = object, 2 = array
  let expect = Expect.Value;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { i++; continue; }
    if (c === QUOTE) {
      if (expect !== Expect.Value && expect !== Expect.KeyOrClose) return false;
      i = skipString(text, i);
      if (i < 0) return false;
      expect = expect === Expect.KeyOrClose ? Expect.Colon : Expect.CommaOrClose;
      continue;
    }
    if (c === 0x3a) { if (expect !== Expect.Colon) return false; expect = Expect.Value; i++; continue; }
    if (c === 0x2c) {
      if (expect !== Expect.CommaOrClose || containers.length === 0) return false;
      expect = containers[containers.length - 1] === 1 ? Expect.KeyOrClose : Expect.Value;
      i++;
      // A comma must be followed by a key (object) or a value (array), never by a close.
      let k = i;
      while (k < n && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x0a || text.charCodeAt(k) === 0x0d || text.charCodeAt(k) === 0x09)) k++;
      const next = text.charCodeAt(k);
      if (next === 0x7d || next === 0x5d) return false;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (expect !== Expect.Value) return false;
      containers.push(c === 0x7b ? 1 : 2);
      expect = c === 0x7b ? Expect.KeyOrClose : Expect.Value;
      i++;
      if (c === 0x5b) {
        let k = i;
        while (k < n && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x0a || text.charCodeAt(k) === 0x0d || text.charCodeAt(k) === 0x09)) k++;
        if (text.charCodeAt(k) === 0x5d) { containers.pop(); expect = Expect.CommaOrClose; i = k + 1; }
      }
      continue;
    }
    if (c === 0x7d || c === 0x5d) {
      const open = containers.pop();
      if (open !== (c === 0x7d ? 1 : 2)) return false;
      // `}` may also close an empty object (`,}` was refused at the comma).
      if (expect !== Expect.CommaOrClose && !(c === 0x7d && expect === Expect.KeyOrClose)) return false;
      expect = Expect.CommaOrClose;
      i++;
      continue;
    }
    if (expect !== Expect.Value) return false;
    if (text.startsWith('true', i)) { i += 4; } else if (text.startsWith('false', i)) { i += 5; } else if (text.startsWith('null', i)) { i += 4; } else {
      NUMBER_RE.lastIndex = i;
      if (!NUMBER_RE.test(text)) return false;
      i = NUMBER_RE.lastIndex;
    }
    expect = Expect.CommaOrClose;
  }
  return containers.length === 0 && expect === Expect.CommaOrClose;
}
