import { constants } from 'node:os';
import { STOP_SIGNALS, type StopSignal } from './stop-requests.js';

export interface DeferredStop {
  /** Aborted at the first stop signal, with the signal's name as reason. */
  signal: AbortSignal;
  /** The first stop signal received, if any. */
  received(): StopSignal | null;
  /** The conventional exit code after that signal (128 + its number), or null. */
  exitCode(): number | null;
  /** Gives the signals back their default effect. */
  dispose(): void;
}

/**
 * Until dispose(): SIGTERM, SIGINT and SIGHUP no longer end the process. The first one aborts
 * `signal` so the work in hand stops at its next safe point (a grow or check tool that runs is
 * never stopped midway: stopping resize2fs midway could damage the filesystem); `onSignal` is
 * told of each (e.g. to say so on stderr; the FlexVolume driver stays silent). The command exits
 * non-zero afterwards (see exitCode). SIGKILL cannot be caught: the device lock covers it.
 */
export function deferStopSignals(
  onSignal?: (name: StopSignal, first: boolean) => void,
): DeferredStop {
  const controller = new AbortController();
  let first: StopSignal | null = null;
  const handlers = STOP_SIGNALS.map((name) => {
    const handler = (): void => {
      const isFirst = first === null;
      if (isFirst) {
        first = name;
        controller.abort(name);
      }
      onSignal?.(name, isFirst);
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  return {
    signal: controller.signal,
    received: () => first,
    exitCode: () => (first === null ? null : 128 + constants.signals[first]),
    dispose: () => {
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}
