/** A decoded JSON value that is an object (not null, not an array): its fields may be read by name. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
