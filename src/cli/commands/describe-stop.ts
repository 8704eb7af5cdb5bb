import type { StopReason } from '../stop-requests.js';

/** The log fields that say why voe serve stops. */
export function describeStop(reason: StopReason): Record<string, unknown> {
  if (reason.kind === 'signal') return { signal: reason.signal };
  if (reason.kind === 'output-closed') return { output: 'the reader of standard output went away' };
  return {
    [reason.origin]: reason.error instanceof Error ? reason.error.message : String(reason.error),
  };
}
