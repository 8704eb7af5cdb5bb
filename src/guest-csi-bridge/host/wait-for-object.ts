import type { KubeClientConfig } from '../../kube/index.js';
import {
  apiErrorOf,
  isGone,
  isNotFound,
  openWatch,
  requestJson,
  resourcePath,
  type NamedResourceRef,
  type WatchEvent,
} from '../../kube/index.js';
import type { WaitOptions } from './host-api.js';

interface Versioned {
  metadata?: { resourceVersion?: string };
}

/** How long one watch may stay silent before it is opened again (the API server sends bookmarks). */
const WATCH_IDLE_MS = 90_000;
/** Server-side timeout of one watch; the wait opens the next from the last resourceVersion. */
const WATCH_TIMEOUT_S = 300;

/** The object as last seen and the resourceVersion to watch from. */
interface Seen<T> {
  object: T | undefined;
  resourceVersion: string | undefined;
}

async function read<T extends Versioned>(
  kc: KubeClientConfig,
  ref: NamedResourceRef,
  signal: AbortSignal,
): Promise<Seen<T>> {
  try {
    const object = await requestJson<T>(kc, { method: 'GET', path: resourcePath(ref), signal });
    return { object, resourceVersion: object.metadata?.resourceVersion };
  } catch (error) {
    if (isNotFound(error)) return { object: undefined, resourceVersion: undefined };
    throw error;
  }
}

/**
 * Resolves with the object once `done` holds for it (`undefined`: it does not exist), by
 * watching that one object (a field selector on its name) from the resourceVersion it was read
 * at: no polling interval, each change is judged as the API server sends it. A watch that ends is
 * opened again from the last resourceVersion seen; an expired one (410 Gone) reads the object
 * again. Rejects with `options.signal`'s reason when it aborts, and with the error of a read or
 * of a watch the API server does not open.
 */
export async function waitForObject<T extends Versioned>(
  kc: KubeClientConfig,
  ref: NamedResourceRef,
  done: (object: T | undefined) => boolean,
  options: WaitOptions<T>,
): Promise<T | undefined> {
  const { signal } = options;
  signal.throwIfAborted();
  let seen: Seen<T> = options.start ?? (await read<T>(kc, ref, signal));
  if (done(seen.object)) return seen.object;
  for (;;) {
    signal.throwIfAborted();
    const { end, ...latest } = await watchUntilDone(kc, ref, seen, done, signal);
    seen = latest;
    if (end === 'done') return seen.object;
    if (end === 'gone') {
      seen = await read<T>(kc, ref, signal);
      if (done(seen.object)) return seen.object;
    }
  }
}

/**
 * One watch of the object from `from.resourceVersion`: resolves with the object and
 * resourceVersion last seen once `done` holds ('done'), the stream ended ('closed': open the next
 * from there) or it expired ('gone': read the object again). Rejects with the signal's reason when
 * it aborts, and with an error event's or a watch the API server does not open.
 */
function watchUntilDone<T extends Versioned>(
  kc: KubeClientConfig,
  ref: NamedResourceRef,
  from: Seen<T>,
  done: (object: T | undefined) => boolean,
  signal: AbortSignal,
): Promise<Seen<T> & { end: 'done' | 'closed' | 'gone' }> {
  let { object, resourceVersion } = from;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (end: 'done' | 'closed' | 'gone'): void => {
      if (settled) return;
      settled = true;
      resolve({ object, resourceVersion, end });
    };
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const watchAbort = new AbortController();
    const onAbort = (): void => {
      watchAbort.abort();
      fail(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const stop = (): void => {
      signal.removeEventListener('abort', onAbort);
      watchAbort.abort();
    };
    openWatch(kc, {
      path: resourcePath({ ...ref, name: undefined }),
      query: {
        fieldSelector: `metadata.name=${ref.name}`,
        allowWatchBookmarks: true,
        timeoutSeconds: WATCH_TIMEOUT_S,
        ...(resourceVersion ? { resourceVersion } : {}),
      },
      idleTimeoutMs: WATCH_IDLE_MS,
      signal: watchAbort.signal,
      onEvent(event: WatchEvent) {
        if (event.type === 'ERROR') {
          stop();
          if (isGone(event.object)) finish('gone');
          else fail(Object.assign(new Error(apiErrorOf(event.object)?.message), event.object));
          return;
        }
        const version = (event.object as Versioned).metadata?.resourceVersion;
        if (version) resourceVersion = version;
        if (event.type === 'BOOKMARK') return;
        object = event.type === 'DELETED' ? undefined : (event.object as T);
        if (done(object)) {
          stop();
          finish('done');
        }
      },
      // A stream that ends, cleanly or not, is opened again from the last resourceVersion.
      onDone() {
        signal.removeEventListener('abort', onAbort);
        finish('closed');
      },
    }).catch((error: unknown) => {
      signal.removeEventListener('abort', onAbort);
      if (isGone(error)) finish('gone');
      else fail(error);
    });
  });
}
