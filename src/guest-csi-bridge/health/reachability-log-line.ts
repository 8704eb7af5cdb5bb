/** A line to log about the host API's reachability, or none. */
export interface ReachabilityLogLine {
  level: 'info' | 'warn';
  msg: string;
}

/**
 * What to log when a probe of the host API finds it answering (`now` true) or not, after the
 * previous probe's finding (`previous`; undefined before the first): a line on the first finding
 * and on each change, nothing while it stays the same.
 */
export function reachabilityLogLine(
  previous: boolean | undefined,
  now: boolean,
): ReachabilityLogLine | undefined {
  if (previous === now) return undefined;
  if (now) return { level: 'info', msg: 'the host API answers' };
  return {
    level: 'warn',
    msg:
      previous === undefined
        ? 'the host API does not answer yet; calls that need it answer UNAVAILABLE until it does'
        : 'the host API stopped answering; calls that need it answer UNAVAILABLE until it does',
  };
}
