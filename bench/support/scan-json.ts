/**
 * Benchmark reference only (bench/webhook.bench.ts, server mode "bare-scan"): walks a JSON text
 * once and says whether it is one well-formed JSON value (RFC 8259, what JSON.parse accepts),
 * building no objects and no strings. It shows what the cheapest decoding of an AdmissionReview
 * that still refuses every malformed body costs, next to JSON.parse. Linear in the text: one pass
 * with an explicit container stack; strings are skipped by a sticky regular expression up to the
 * next quote, backslash or control character. Not the webhook's parser (that is JSON.parse);
 * test/unit/bench/scan-json.test.ts checks that it accepts exactly what JSON.parse accepts.
 */
const OBJECT = 0;
const ARRAY = 1;
/** Characters a string may hold unescaped, as many as follow (control characters are what it must stop at). */
// eslint-disable-next-line no-control-regex
const PLAIN = /[^"\\\u0000-\u001f]*/y;
const HEX = /[0-9a-fA-F]{4}/y;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index after the string whose opening quote is at `i`, or -1. */
function endOfString(text: string, i: number): number {
  i++;
  for (;;) {
    PLAIN.lastIndex = i;
    PLAIN.test(text);
    i = PLAIN.lastIndex;
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c !== 0x5c) return -1; // a control character or the end of the text
    const e = text.charCodeAt(i + 1);
    if (e === 0x75) {
      HEX.lastIndex = i + 2;
      if (!HEX.test(text)) return -1;
      i += 6;
    } else if (
      e === 0x22 ||
      e === 0x5c ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    ) {
      i += 2;
    } else {
      return -1;
    }
  }
}

function endOfDigits(text: string, i: number): number {
  const start = i;
  let c = text.charCodeAt(i);
  while (c >= 0x30 && c <= 0x39) c = text.charCodeAt(++i);
  return i > start ? i : -1;
}

/** Index after the number starting at `i`, or -1. */
function endOfNumber(text: string, i: number): number {
  if (text.charCodeAt(i) === 0x2d) i++;
  const first = text.charCodeAt(i);
  if (first === 0x30) i++;
  else if (first >= 0x31 && first <= 0x39) i = endOfDigits(text, i);
  else return -1;
  if (text.charCodeAt(i) === 0x2e) {
    i = endOfDigits(text, i + 1);
    if (i < 0) return -1;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b || sign === 0x2d) i++;
    i = endOfDigits(text, i);
  }
  return i;
}

/** Index after `"key":` (whitespace allowed before the colon) whose quote is at `i`, or -1. */
function endOfKey(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x22) return -1;
  i = endOfString(text, i);
  if (i < 0) return -1;
  while (isSpace(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === 0x3a ? i + 1 : -1;
}

/** Index after the JSON value that starts at `i` (after optional whitespace), or -1. */
function endOfValue(text: string, i: number): number {
  const n = text.length;
  const stack: number[] = [];
  for (;;) {
    // A value is expected at i.
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    let c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      i++;
      while (i < n && isSpace(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) === (c === 0x7b ? 0x7d : 0x5d)) {
        i++;
      } else {
        stack.push(c === 0x7b ? OBJECT : ARRAY);
        if (c === 0x7b && (i = endOfKey(text, i)) < 0) return -1;
        continue;
      }
    } else if (c === 0x22) {
      i = endOfString(text, i);
      if (i < 0) return -1;
    } else if (c === 0x74) {
      if (!text.startsWith('true', i)) return -1;
      i += 4;
    } else if (c === 0x66) {
      if (!text.startsWith('false', i)) return -1;
      i += 5;
    } else if (c === 0x6e) {
      if (!text.startsWith('null', i)) return -1;
      i += 4;
    } else {
      i = endOfNumber(text, i);
      if (i < 0) return -1;
    }
    // After a value: close containers until a comma starts the next value, or the outer value ends.
    for (;;) {
      if (stack.length === 0) return i;
      while (i < n && isSpace(text.charCodeAt(i))) i++;
      c = text.charCodeAt(i);
      const top = stack[stack.length - 1];
      if (c === 0x2c) {
        i++;
        if (top === OBJECT) {
          while (i < n && isSpace(text.charCodeAt(i))) i++;
          i = endOfKey(text, i);
          if (i < 0) return -1;
        }
        break;
      }
      if (c !== (top === OBJECT ? 0x7d : 0x5d)) return -1;
      stack.pop();
      i++;
    }
  }
}

export function scanJson(text: string): boolean {
  let end = endOfValue(text, 0);
  if (end < 0) return false;
  while (isSpace(text.charCodeAt(end))) end++;
  return end === text.length;
}
