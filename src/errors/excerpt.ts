/**
 * `value` as JSON, at most `max` characters of it (an ellipsis marks the cut): for quoting user
 * input in messages that UIs show and logs keep, whatever its size.
 */
export function excerpt(value: unknown, max = 80): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What kind of JSON value this is, for messages: "null", "an array", "an object", "a string"... ("nothing" when absent). */
export function describeJsonType(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
