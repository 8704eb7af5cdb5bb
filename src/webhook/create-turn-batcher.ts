/** Most items one `run` call gets: a larger batch would hold its first answer back for longer. */
export const TURN_BATCH_LIMIT = 32;

export interface TurnBatcherOptions<T> {
  /** Handles one batch (in the order the items were added); it is meant to handle each item's own failures. */
  run: (items: T[]) => void;
  /** Called when `run` threw anyway, with the batch it threw on; the next batches still run. */
  onError: (error: unknown, items: T[]) => void;
  /** Default TURN_BATCH_LIMIT. */
  limit?: number;
}

/**
 * Returns `add(item)`. The items added during one turn of the event loop are handed to `run`
 * together, at most `limit` at a time, in the check phase of that same turn (setImmediate): no
 * timer, so an item waits only for the items added beside it, never for the next turn's.
 *
 * For the admission hot path: under load the poll phase reads many requests at once (one per
 * ready connection), and handling them stage by stage (all decoded, then all judged, then all
 * answered) keeps each stage's code and data in the CPU caches instead of alternating with
 * TLS and HTTP parsing for every request (measured in docs/performance.md, session 28).
 */
export function createTurnBatcher<T>(options: TurnBatcherOptions<T>): (item: T) => void {
  const limit = Math.max(1, options.limit ?? TURN_BATCH_LIMIT);
  let pending: T[] = [];
  const flush = (): void => {
    const all = pending;
    pending = [];
    for (let from = 0; from < all.length; from += limit) {
      const items = from === 0 && all.length <= limit ? all : all.slice(from, from + limit);
      try {
        options.run(items);
      } catch (error) {
        options.onError(error, items);
      }
    }
  };
  return (item: T): void => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(item);
  };
}
