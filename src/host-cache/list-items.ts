/** The items of a list answer (none when the read found nothing). */
export function listItems<T>(list: unknown): T[] {
  return (list as { items?: T[] } | undefined)?.items ?? [];
}

/** An optional read's object as a list (empty when the read found nothing). */
export function listOf<T>(object: T | undefined): T[] {
  return object ? [object] : [];
}
