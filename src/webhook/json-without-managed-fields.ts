import { endOfStructuredJson } from './end-of-structured-json.js';

/**
 * The key as the API server writes it (Go's encoding/json: no whitespace) with the list's opening
 * bracket, searched for by its end: a needle that starts with a quote, the commonest byte of JSON,
 * makes Buffer#indexOf ~6 times slower.
 */
const KEY_END = Buffer.from('Fields":[');
const KEY_START = Buffer.from('"managed');

/**
 * The UTF-8 text of `body[0..size)` with every `managedFields` list (the objects' metadata.managedFields,
 * about half of an AdmissionReview's bytes, read by no validator) replaced by `[]`, so that
 * JSON.parse builds none of its objects. The lists are only checked for well-formedness
 * (endOfStructuredJson), which costs a fraction of building them.
 *
 * JSON.parse accepts the result exactly when it accepts the whole text, and then gives the same
 * value except for those lists. A list is replaced only when its key follows ',' or '{' (so its
 * quote is unescaped) and the list is a well-formed value on its own. Then, in a text JSON.parse
 * gets that far in, the quoted managedFields is an object's key: a quote after ',' or '{' opens a
 * string (closing one would leave `managedFields` outside any string), the quote after the name
 * closes it, and after a key's colon any value is expected. So the same parse follows with `[]` in
 * place of one well-formed list, and it fails or succeeds as it would have. Anything else (another
 * spelling, a list holding numbers, a malformed list) is left in place for JSON.parse to read or refuse.
 * JSON.parse's error positions are in the text without the lists: a caller that reports them parses
 * the whole text again.
 */
export function jsonWithoutManagedFields(body: Buffer, size: number): string {
  const bytes = size === body.length ? body : body.subarray(0, size);
  let text = '';
  let from = 0;
  let at = 0;
  for (;;) {
    const found = bytes.indexOf(KEY_END, at);
    if (found < 0) break;
    at = found + KEY_END.length;
    const key = found - KEY_START.length;
    if (key < 1 || !holdsAt(bytes, key, KEY_START)) continue;
    const before = bytes[key - 1];
    if (before !== 0x2c && before !== 0x7b) continue;
    const list = at - 1;
    const after = endOfStructuredJson(bytes, list, size);
    if (after < 0) continue;
    text += `${bytes.toString('utf8', from, list)}[]`;
    from = after;
    at = after;
  }
  return from === 0 ? bytes.toString('utf8', 0, size) : text + bytes.toString('utf8', from, size);
}

function holdsAt(bytes: Uint8Array, at: number, part: Uint8Array): boolean {
  for (let i = 0; i < part.length; i++) if (bytes[at + i] !== part[i]) return false;
  return true;
}
