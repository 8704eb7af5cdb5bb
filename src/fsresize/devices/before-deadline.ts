import { abandonCall } from './abandoned-calls.js';

/** What beforeDeadline resolves with when the call had not settled in time. */
export const LATE = Symbol('late');

/**
 * `call`'s outcome (its rejection included), or LATE when it has not settled by `deadline`
 * (Date.now() ms): a system call on a hung NFS or FUSE mount, or a device that never answers,
 * is then counted as abandoned until it settles (see abandoned-calls), and its later rejection is
 * not reported.
 */
export async function beforeDeadline<T>(
  call: Promise<T>,
  deadline: number,
): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), Math.max(0, deadline - Date.now()));
  });
  try {
    const outcome = await Promise.race([call, late]);
    if (outcome === LATE) {
      abandonCall(call);
      call.catch(() => undefined);
    }
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}
