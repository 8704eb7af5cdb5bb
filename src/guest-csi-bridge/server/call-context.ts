import type { Logger } from '../../log/index.js';

/** What every RPC handler gets besides its request. */
export interface CallContext {
  /** Aborted when the client cancels the call or its deadline is near. */
  signal: AbortSignal;
  /** The call's deadline (epoch ms), when the client set one. */
  deadline: number | undefined;
  log: Logger;
}

/**
 * Runs `fn` with a signal that aborts with `ctx.signal` or after `ms` (the longest one operation
 * waits for the host when the call's deadline is further away or unset); the timer and listener
 * are removed when `fn` settles.
 */
export async function withWaitSignal<T>(
  ctx: CallContext,
  ms: number,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const own = new AbortController();
  const timer = setTimeout(() => own.abort('timeout'), ms);
  const onAbort = (): void => own.abort(ctx.signal.reason);
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await fn(own.signal);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
  }
}
