import { FsResizeError } from '../model/fsresize-error.js';

/** FSRESIZE_INTERRUPTED when a stop was asked for (GrowOptions.signal); `what` says where the grow stopped. */
export function stopIfAsked(
  signal: AbortSignal | undefined,
  what: string,
  details?: Record<string, unknown>,
): void {
  if (!signal?.aborted) return;
  throw new FsResizeError(
    'FSRESIZE_INTERRUPTED',
    `stopped (${String(signal.reason ?? 'on request')}) ${what}`,
    details ? { details } : {},
  );
}
