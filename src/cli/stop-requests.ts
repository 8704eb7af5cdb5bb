import { constants as osConstants } from 'node:os';
import { OUTPUT_CLOSED_EXIT_CODE, onOutputClosed } from './output-closed.js';

/** The signals that stop a long-running command: Ctrl-C, `kill`, and a closed terminal. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Why a command is asked to stop: a signal, its output's reader gone (see onOutputClosed), or an error nothing caught (the process is then in doubt). */
export type StopReason =
  | { kind: 'signal'; signal: StopSignal }
  | { kind: 'output-closed' }
  | { kind: 'error'; origin: 'uncaughtException' | 'unhandledRejection'; error: unknown };

export interface StopRequests {
  /** Aborted at the first stop request; pass it to everything that waits during start-up. */
  readonly signal: AbortSignal;
  /** Resolves with the first stop request. */
  readonly requested: Promise<StopReason>;
  /** The first stop request, once there is one. */
  reason(): StopReason | undefined;
  /** Removes the handlers; call after cleaning up. */
  dispose(): void;
}

/**
 * The exit code after a stop request: 128 + the signal's number, as if the signal had ended the
 * process (SIGPIPE's for a closed output); 2 after an uncaught error.
 */
export function stopExitCode(reason: StopReason): number {
  if (reason.kind === 'signal') return 128 + osConstants.signals[reason.signal];
  return reason.kind === 'output-closed' ? OUTPUT_CLOSED_EXIT_CODE : 2;
}

/** The part of `process` this needs (a real process in production and in the tests). */
export type StopTarget = Pick<NodeJS.Process, 'on' | 'off'>;

/**
 * Turns SIGINT, SIGTERM, SIGHUP, a closed output, an uncaught exception and an unhandled rejection into one stop
 * request, so a command can undo what it changed (in the cluster, on disk) before it exits instead
 * of dying with it in place. Install it before changing anything. The handlers stay until
 * `dispose()`: a request while stopping (a second Ctrl-C, an error thrown by the cleanup) goes to
 * `onRepeat` instead of killing the process half-way through its cleanup.
 */
export function watchStopRequests(
  target: StopTarget = process,
  onRepeat: (reason: StopReason) => void = () => undefined,
  whenOutputCloses: (listener: () => void) => () => void = onOutputClosed,
): StopRequests {
  const controller = new AbortController();
  let first: StopReason | undefined;
  let resolveRequested!: (reason: StopReason) => void;
  const requested = new Promise<StopReason>((resolve) => {
    resolveRequested = resolve;
  });
  const request = (reason: StopReason): void => {
    if (first !== undefined) {
      onRepeat(reason);
      return;
    }
    first = reason;
    resolveRequested(reason);
    controller.abort(reason);
  };
  const onSignal = (signal: NodeJS.Signals): void =>
    request({ kind: 'signal', signal: signal as StopSignal });
  const onException = (error: unknown): void =>
    request({ kind: 'error', origin: 'uncaughtException', error });
  const onRejection = (error: unknown): void =>
    request({ kind: 'error', origin: 'unhandledRejection', error });
  for (const signal of STOP_SIGNALS) target.on(signal, onSignal);
  target.on('uncaughtException', onException);
  target.on('unhandledRejection', onRejection);
  const stopWatchingOutput = whenOutputCloses(() => request({ kind: 'output-closed' }));
  return {
    signal: controller.signal,
    requested,
    reason: () => first,
    dispose: () => {
      for (const signal of STOP_SIGNALS) target.off(signal, onSignal);
      target.off('uncaughtException', onException);
      target.off('unhandledRejection', onRejection);
      stopWatchingOutput();
    },
  };
}
