import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { beforeDeadline, LATE } from './before-deadline.js';
import { FsResizeError } from '../model/fsresize-error.js';

/** What a stat of a path another program uses found: its Stats, or null when it is gone or not ours to see. */
export type StatOutcome = Stats | null;

/** A bounded stat (see createStatWithin); `label` says whose path it is, for the timeout's message. */
export type StatWithin = (path: string, label: string) => Promise<StatOutcome>;

/**
 * stat(2) of paths that may lie on any filesystem of the node, some of which may never answer (a
 * hard NFS mount whose server is down, a FUSE mount whose daemon hangs): at most `lanes` at a time
 * (each stuck one holds a thread of libuv's pool of 4 until its filesystem answers), and all of
 * them before `deadline` (Date.now() ms), after which FSRESIZE_TIMEOUT names the path that did
 * not answer and `what` was being done. Nothing is retried.
 */
export function createStatWithin(deadline: number, what: string, lanes = 2): StatWithin {
  let running = 0;
  const waiting: Array<() => void> = [];
  const inFlight = new Map<string, string>();
  let expired: FsResizeError | undefined;
  const expire = (): FsResizeError => {
    const [path, label] = [...inFlight.entries()][0] ?? ['', ''];
    expired ??= new FsResizeError(
      'FSRESIZE_TIMEOUT',
      `${what} did not finish in time: ${path ? `stat of ${path} (${label}) did not answer` : 'the node was too slow'} (a hung network or FUSE filesystem?); nothing was changed — repair or unmount that filesystem and retry`,
    );
    return expired;
  };
  return async (path, label) => {
    if (expired) throw expired;
    if (running >= lanes) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    inFlight.set(path, label);
    try {
      if (deadline - Date.now() <= 0) throw expire();
      const outcome = await beforeDeadline(
        stat(path).catch(() => null),
        deadline,
      );
      if (outcome === LATE) throw expire();
      return outcome;
    } finally {
      inFlight.delete(path);
      running -= 1;
      waiting.shift()?.();
    }
  };
}
