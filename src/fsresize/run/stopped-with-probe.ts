import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { FsResizeError, isFsResizeError } from '../model/fsresize-error.js';

/**
 * How long a probe ended by a stop signal waits for voe's own stop to be seen: the probe's end and
 * the signal voe received reach it as two events, in either order.
 */
const STOP_SIGNAL_GRACE_MS = 1_000;

/** Resolves once `signal` aborts or `ms` have passed, whichever comes first. */
async function abortedWithin(signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return;
  const settled = new AbortController();
  await Promise.race([
    once(signal, 'abort', { signal: settled.signal }).catch(() => undefined),
    delay(ms, undefined, { signal: settled.signal }).catch(() => undefined),
  ]);
  settled.abort();
}

/**
 * A probe (blkid, xfs_io...) ended by the very stop signal voe received, before any grow or check
 * tool started: a terminal's Ctrl-C reaches voe's whole process group, a service manager's stop
 * its whole cgroup, so the probe dies of it while voe stops at its next safe point. That is the
 * stop (FSRESIZE_INTERRUPTED, nothing changed), not a tool failure; null for any other error.
 */
export async function stoppedWithProbe(
  error: unknown,
  signal: AbortSignal | undefined,
): Promise<FsResizeError | null> {
  if (
    !signal ||
    !isFsResizeError(error) ||
    error.code !== 'FSRESIZE_TOOL_FAILED' ||
    !error.tool?.signal
  )
    return null;
  // The probe's end and voe's own signal arrive as two events, in either order: a probe ended by
  // a stop signal is given a moment for voe's to be seen.
  if (!signal.aborted) await abortedWithin(signal, STOP_SIGNAL_GRACE_MS);
  if (!signal.aborted || error.tool.signal !== String(signal.reason)) return null;
  const { tool } = error;
  return new FsResizeError(
    'FSRESIZE_INTERRUPTED',
    `stopped (${String(signal.reason)}) while ${[tool.tool, ...tool.args].join(' ')} ran, which the same signal ended (it reaches voe's whole process group or service); nothing was changed`,
    { cause: error, tool },
  );
}
