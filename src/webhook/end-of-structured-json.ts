/**
 * Index just after the JSON value that starts at `start` (leading whitespace allowed) in the UTF-8
 * bytes `bytes[start..end)`, when that value is made only of objects, arrays and strings, as
 * Kubernetes' managedFields are; otherwise -1. It builds nothing.
 *
 * -1 covers both a malformed or unfinished value and a well-formed one it does not read (a number,
 * true, false, null, or nesting deeper than MAX_DEPTH): a caller then leaves those bytes to
 * JSON.parse. So it may refuse what JSON.parse accepts, never the other way round. What it accepts
 * is what RFC 8259 (ECMA-404, JSON.parse) accepts: whitespace is space, tab, LF and CR; a string
 * holds no unescaped control character (below 0x20), and its escapes are \" \\ \/ \b \f \n \r \t or
 * \u with four hex digits. Bytes of 0x80 and above are allowed in strings only, as JSON.parse allows
 * what they decode to (invalid UTF-8 included: it decodes to U+FFFD).
 */
export function endOfStructuredJson(bytes: Uint8Array, start: number, end: number): number {
  /** The closing byte of each open container, innermost last. */
  const closers: number[] = [];
  let expect = VALUE;
  let i = start;
  while (i < end) {
    const c = bytes[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      i++;
      continue;
    }
    if (expect === AFTER_VALUE) {
      const closer = closers[closers.length - 1];
      if (c === 0x2c) {
        expect = closer === 0x7d ? KEY : VALUE;
      } else if (c !== closer) {
        return -1;
      } else {
        closers.pop();
      }
      i++;
    } else if (expect === COLON) {
      if (c !== 0x3a) return -1;
      i++;
      expect = VALUE;
    } else if (c === 0x22) {
      i = endOfString(bytes, i + 1, end);
      if (i < 0) return -1;
      expect = expect === VALUE || expect === VALUE_OR_CLOSE ? AFTER_VALUE : COLON;
    } else if (expect === KEY) {
      return -1;
    } else if (expect === KEY_OR_CLOSE) {
      if (c !== 0x7d) return -1;
      closers.pop();
      i++;
      expect = AFTER_VALUE;
    } else if (c === 0x7b || c === 0x5b) {
      if (closers.length === MAX_DEPTH) return -1;
      closers.push(c + 2); // '{' + 2 = '}', '[' + 2 = ']'
      i++;
      expect = c === 0x7b ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
    } else if (c === 0x5d && expect === VALUE_OR_CLOSE) {
      closers.pop();
      i++;
      expect = AFTER_VALUE;
    } else {
      return -1;
    }
    if (expect === AFTER_VALUE && closers.length === 0) return i;
  }
  return -1;
}

/** Deeper containers are left to JSON.parse (managedFields nest a dozen levels at most). */
export const MAX_DEPTH = 512;

const VALUE = 0;
/** Just after '[': a value or ']'. */
const VALUE_OR_CLOSE = 1;
/** Just after '{': a key or '}'. */
const KEY_OR_CLOSE = 2;
/** After ',' in an object. */
const KEY = 3;
const COLON = 4;
/** After a value inside a container: ',' or its closer. */
const AFTER_VALUE = 5;

/** Index after the string whose opening quote is just before `i`, or -1. */
function endOfString(bytes: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = bytes[i]!;
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -1;
    if (c !== 0x5c) {
      i++;
      continue;
    }
    const escaped = bytes[i + 1];
    if (escaped === 0x75) {
      for (let h = i + 2; h < i + 6; h++) {
        const d = h < end ? bytes[h]! : 0;
        if (!((d >= 0x30 && d <= 0x39) || (d >= 0x41 && d <= 0x46) || (d >= 0x61 && d <= 0x66)))
          return -1;
      }
      i += 6;
    } else if (
      escaped === 0x22 ||
      escaped === 0x5c ||
      escaped === 0x2f ||
      escaped === 0x62 ||
      escaped === 0x66 ||
      escaped === 0x6e ||
      escaped === 0x72 ||
      escaped === 0x74
    ) {
      i += 2;
    } else {
      return -1;
    }
  }
  return -1;
}
