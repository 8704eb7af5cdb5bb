import { isGone, isNotFound } from './api-error.js';

/** Where an informer's list-and-watch loop stands between two rounds. */
export interface ReflectorState {
  /** Failures in a row: the exponent of the backoff before the next round (none while 0). */
  failures: number;
  /** The next round lists before it watches. */
  needList: boolean;
  /** The last round ended in 410 Gone: a second one in a row counts as a failure. */
  lastGone: boolean;
}

/** The state after one round, the failure to report (its error), and a pause before the next round when there is no backoff. */
export interface ReflectorStep {
  state: ReflectorState;
  failure?: { error: unknown };
  pauseMs: number;
}

/** A watch that ended: 'gone' (410), or 'closed' (a clean end) after `events` events and `elapsedMs`. */
export interface WatchEnd {
  outcome: 'gone' | 'closed';
  events: number;
  elapsedMs: number;
}

/** A watch shorter than this without events is a failure ("very short watch", client-go's reflector). */
const SHORT_WATCH_MS = 1000;

export const FIRST_REFLECTOR_STATE: ReflectorState = {
  failures: 0,
  needList: true,
  lastGone: false,
};

/**
 * The round after a watch ended without an error. 410 Gone: list again (two in a row count as a
 * failure). A watch that delivered events or lasted: failures are over, but one that keeps ending
 * within a second after a few events (a server closing it each time) pauses `baseMs` so it does
 * not become a tight reconnect loop. A very short watch without events is a failure, and, as
 * client-go's reflector does, the next round lists first, so the cache is known to follow the API
 * server again (`inSync`) only after a list. Pure.
 */
export function afterWatch(state: ReflectorState, end: WatchEnd, baseMs: number): ReflectorStep {
  if (end.outcome === 'gone') {
    return {
      state: {
        failures: state.lastGone ? state.failures + 1 : state.failures,
        needList: true,
        lastGone: true,
      },
      pauseMs: 0,
    };
  }
  if (end.events > 0 || end.elapsedMs >= SHORT_WATCH_MS) {
    return {
      state: { ...state, failures: 0, lastGone: false },
      pauseMs: end.elapsedMs < SHORT_WATCH_MS ? baseMs : 0,
    };
  }
  return failed({ ...state, needList: true }, new Error('watch closed immediately without events'));
}

/**
 * The round after a list or watch threw. Every failure lists again before the next watch (as
 * client-go's reflector: rather than re-watching from the same resourceVersion forever, e.g. a
 * watch refused, 500s, a proxy). With `notServedAsEmpty`, a 404 (the resource gone, its CRD
 * deleted) lists again, which finds out. 410 Gone counts as a failure only the second time in a
 * row. Pure.
 */
export function afterFailure(
  state: ReflectorState,
  error: unknown,
  notServedAsEmpty: boolean,
): ReflectorStep {
  if (notServedAsEmpty && isNotFound(error))
    return failed({ ...state, needList: true, lastGone: false }, error);
  if (isGone(error)) {
    const next = { ...state, needList: true, lastGone: true };
    return state.lastGone ? failed(next, error) : { state: next, pauseMs: 0 };
  }
  return failed({ ...state, needList: true, lastGone: false }, error);
}

function failed(state: ReflectorState, error: unknown): ReflectorStep {
  return { state: { ...state, failures: state.failures + 1 }, failure: { error }, pauseMs: 0 };
}
