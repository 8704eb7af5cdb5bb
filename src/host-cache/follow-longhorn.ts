import type { KubeClientConfig } from '../kube/index.js';
import {
  apiErrorOf,
  describeFailure,
  NOT_SERVED_RETRY_MS,
  realClock,
  servedResources,
  sleep,
} from '../kube/index.js';
import type { AdmissionOptions } from '../admission/index.js';
import {
  createAdmissionInformer,
  logInSyncChange,
  type AdmissionInformer,
  type AdmissionInformerContext,
} from './admission-informer.js';
import {
  admissionIndexers,
  ENGINES_BY_VOLUME_INDEX,
  VOLUMES_BY_PV_INDEX,
} from './cache-snapshot-source.js';
import type { LonghornEngine, LonghornSetting, LonghornVolume } from '../model/index.js';

/** Longhorn's API that voe reads: Volumes, Engines and Settings of longhorn.io/v1beta2. */
const LONGHORN_API = { group: 'longhorn.io', version: 'v1beta2' } as const;
const LONGHORN_PLURALS = ['volumes', 'engines', 'settings'] as const;
const LONGHORN_API_TEXT = 'longhorn.io/v1beta2 (Volumes, Engines, Settings)';

/**
 * Whether discovery lists all three Longhorn resources voe reads (longhorn.io/v1beta2 volumes,
 * engines, settings). Discovery is readable by any authenticated user, so this answers for an
 * identity without the Longhorn Role too. Rejects when discovery cannot be read.
 */
export async function isLonghornServed(
  kubeConfig: KubeClientConfig,
  signal?: AbortSignal,
): Promise<boolean> {
  const served = await servedResources(kubeConfig, LONGHORN_API, signal);
  return LONGHORN_PLURALS.every((plural) => served.has(plural));
}

/** The three Longhorn caches the decisions read. */
export interface LonghornCaches {
  volumes: AdmissionInformer<LonghornVolume>;
  engines: AdmissionInformer<LonghornEngine>;
  settings: AdmissionInformer<LonghornSetting>;
}

export interface FollowLonghornOptions extends AdmissionInformerContext {
  options: Pick<AdmissionOptions, 'longhornNamespace' | 'longhornVersionSetting'>;
  /** What discovery said when voe started (isLonghornServed): watch Longhorn from the start, as `--longhorn on` does. */
  servedAtStart: boolean;
  /** How often discovery is asked while Longhorn is not read; NOT_SERVED_RETRY_MS (5 s) unless told. */
  intervalMs?: number;
}

/** `voe serve --longhorn auto`'s Longhorn caches, which come and go with Longhorn's API. */
export interface LonghornFollower {
  /**
   * The caches the decisions read now; undefined while Longhorn is not read: the cluster does not
   * serve it, or voe found it after start and its caches have not all listed yet (e.g. 403).
   */
  readonly read: LonghornCaches | undefined;
  /**
   * Resolves once the caches watched from the start (Longhorn served then) have all listed or one
   * of them failed (they are then not read), or at once when there are none: what readiness waits
   * for at start.
   */
  readonly settled: Promise<void>;
  /** The caches that count like the others (readiness, out of sync, /readyz): those of `read`. */
  counted(): AdmissionInformer[];
  /** Longhorn caches watched but not read: the cluster serves Longhorn, but they have not all listed yet (names). */
  notRead(): string[];
  /** Stops looking and watching; resolves once no request or timer is left. */
  stop(): Promise<void>;
}

interface WatchedSet {
  caches: LonghornCaches;
  entries: AdmissionInformer[];
  /** The decisions read it (and it counts for readiness): every cache listed, or it is watched from the start and none failed yet. */
  read: boolean;
  /** Every cache has listed once: from then on failures make it out of sync, as for the other caches. */
  listedOnce: boolean;
  /** Why a cache failed before the set was read, by cache name (the latest failure). */
  failures: Map<string, string>;
  /** A 403 among those failures. */
  forbidden: boolean;
  warned: boolean;
  unsubscribe: Array<() => void>;
}

/**
 * Follows Longhorn's API for `voe serve --longhorn auto`:
 * - served at start: its Volumes, Engines and version Setting are watched at once and count like
 *   the other caches (readiness waits for their first lists; a failure after those makes them out
 *   of sync); a cache that fails before it has listed (403: the Longhorn Role not applied) makes
 *   them not read instead, as below, so voe becomes ready: a restart of a voe that was ready with
 *   Longhorn not read does not leave it unready;
 * - not served: discovery is asked every `intervalMs` (only discovery, which needs no Longhorn
 *   RBAC); once it lists all three resources the caches are started, and the decisions read them
 *   (and they count like the others) once all three have listed. Until then Longhorn is not read, as
 *   before, and voe stays ready: caches that cannot list (403: the Longhorn Role not applied) are
 *   named once, at warn, with the fix, and keep retrying every few seconds;
 * - removed (uninstalled): a cache that finds its resource no longer served (discovery confirms
 *   it), or discovery while the caches are not read yet, stops the caches; Longhorn is not read and
 *   discovery is asked again, so a later install is found, and the Longhorn Role going away with
 *   its namespace does not leave caches refused for ever.
 */
export function followLonghorn(follow: FollowLonghornOptions): LonghornFollower {
  const { logger } = follow;
  const intervalMs = follow.intervalMs ?? NOT_SERVED_RETRY_MS;
  const abort = new AbortController();
  const stopping: Array<Promise<unknown>> = [];
  let set: WatchedSet | undefined;
  let stopped = false;
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const following: Following = {
    follow,
    intervalMs,
    current: () => set,
    stopped: () => stopped,
    settle: () => settle(),
    watch(fromStart) {
      set = watchSet(following, fromStart);
      startSet(follow, set);
    },
    drop(why) {
      const watched = set;
      if (!watched) return;
      set = undefined;
      for (const off of watched.unsubscribe) off();
      stopping.push(Promise.all(watched.entries.map((entry) => entry.informer.stop())));
      settle();
      if (!stopped) {
        logger?.info(
          { why },
          `not watching Longhorn any more (${why}): Longhorn volumes are judged by their StorageClass parameters; ` +
            `voe asks discovery for ${LONGHORN_API_TEXT} every ${intervalMs / 1000} s`,
        );
      }
    },
  };
  if (follow.servedAtStart) {
    following.watch(true);
  } else {
    settle();
    logger?.info(
      { apiVersion: `${LONGHORN_API.group}/${LONGHORN_API.version}` },
      `not watching Longhorn yet: the cluster does not serve ${LONGHORN_API_TEXT}; Longhorn volumes are judged by their StorageClass ` +
        `parameters until it does (voe asks discovery every ${intervalMs / 1000} s)`,
    );
  }
  const looking = lookForLonghorn(following, abort.signal);

  return {
    get read() {
      return set?.read ? set.caches : undefined;
    },
    settled,
    counted: () => (set?.read ? set.entries : []),
    notRead: () =>
      set && !set.read
        ? set.entries.filter((entry) => !entry.informer.inSync).map((entry) => entry.name)
        : [],
    stop: async () => {
      if (!stopped) {
        stopped = true;
        abort.abort();
        following.drop('stopping');
        settle();
      }
      await looking;
      await Promise.all(stopping);
    },
  };
}

/** What the steps of followLonghorn share: the options, and the set of caches watched now. */
interface Following {
  follow: FollowLonghornOptions;
  intervalMs: number;
  /** The caches watched now; undefined while Longhorn is not watched. */
  current(): WatchedSet | undefined;
  stopped(): boolean;
  /** Resolves `settled` (idempotent). */
  settle(): void;
  /** Starts watching the caches (watchSet, then startSet); `fromStart`: Longhorn was served when voe started. */
  watch(fromStart: boolean): void;
  /** Stops watching the caches, saying why (unless voe is stopping). */
  drop(why: string): void;
}

/**
 * Asks discovery every `intervalMs` while Longhorn is not read: watches it once it is served, stops
 * the caches (not read yet) once it is not. While Longhorn is read, its caches notice its
 * removal themselves (served false). Resolves once stopped.
 */
async function lookForLonghorn(following: Following, signal: AbortSignal): Promise<void> {
  const { follow, intervalMs } = following;
  const { logger, options } = follow;
  while (!following.stopped()) {
    await sleep(follow.clock ?? realClock, intervalMs, signal);
    if (following.stopped()) break;
    if (following.current()?.read) continue;
    const served = await askDiscovery(following, signal);
    if (following.stopped()) break;
    if (served && !following.current()) {
      logger?.info(
        { namespace: options.longhornNamespace },
        `Longhorn found: the cluster serves ${LONGHORN_API_TEXT} now; watching its Volumes, Engines and version Setting in ` +
          `${options.longhornNamespace} (Longhorn volumes are judged from them once all three have listed)`,
      );
      following.watch(false);
    } else if (served === false && following.current()) {
      following.drop(`the cluster no longer serves ${LONGHORN_API_TEXT}`);
    }
  }
}

/** isLonghornServed; undefined when discovery cannot be read (said at debug: it is asked again). */
async function askDiscovery(
  following: Following,
  signal: AbortSignal,
): Promise<boolean | undefined> {
  try {
    return await isLonghornServed(following.follow.kubeConfig, signal);
  } catch (error) {
    if (!following.stopped())
      following.follow.logger?.debug(
        { error: describeFailure(error) },
        `discovery of ${LONGHORN_API_TEXT} failed; asking again`,
      );
    return undefined;
  }
}

/** Longhorn's Volumes (indexed by PV), Engines (indexed by volume) and version Setting, as informers not started yet. */
function longhornCaches(follow: FollowLonghornOptions): LonghornCaches {
  const { options } = follow;
  // Failures before the first lists are said once (maybeWarn), not at warn every few seconds.
  const lh = {
    group: LONGHORN_API.group,
    version: LONGHORN_API.version,
    namespace: options.longhornNamespace,
    notServedAsEmpty: true,
    failuresBeforeSyncLogLevel: 'debug' as const,
  };
  return {
    volumes: createAdmissionInformer<LonghornVolume>(follow, {
      ...lh,
      plural: 'volumes',
      indexers: { [VOLUMES_BY_PV_INDEX]: admissionIndexers.longhornVolumes[VOLUMES_BY_PV_INDEX] },
    }),
    engines: createAdmissionInformer<LonghornEngine>(follow, {
      ...lh,
      plural: 'engines',
      indexers: {
        [ENGINES_BY_VOLUME_INDEX]: admissionIndexers.longhornEngines[ENGINES_BY_VOLUME_INDEX],
      },
    }),
    settings: createAdmissionInformer<LonghornSetting>(follow, {
      ...lh,
      plural: 'settings',
      name: options.longhornVersionSetting,
    }),
  };
}

/** A new set of Longhorn caches, its handlers subscribed (not started). */
function watchSet(following: Following, fromStart: boolean): WatchedSet {
  const caches = longhornCaches(following.follow);
  const watched: WatchedSet = {
    caches,
    entries: [caches.volumes, caches.engines, caches.settings] as unknown as AdmissionInformer[],
    read: fromStart,
    listedOnce: false,
    failures: new Map(),
    forbidden: false,
    warned: false,
    unsubscribe: [],
  };
  for (const entry of watched.entries)
    watched.unsubscribe.push(...subscribe(following, watched, entry));
  return watched;
}

/** The handlers of one cache of the set; returns their unsubscribe functions. */
function subscribe(
  following: Following,
  watched: WatchedSet,
  entry: AdmissionInformer,
): Array<() => void> {
  const { informer } = entry;
  // After the informer's own handlers of one list have all run (sync, then inSync and served).
  const check = (): void => queueMicrotask(() => maybeRead(following, watched));
  return [
    informer.on('sync', check),
    informer.on('inSync', (inSync) => {
      if (watched.read) logInSyncChange(following.follow.logger, entry, inSync);
      else check();
    }),
    informer.on('error', (error) => {
      // Once every cache has listed, a failure makes it out of sync like any other cache (inSync).
      if (watched.listedOnce) return;
      if (watched.read) {
        // Watched from the start: not read until they all list, rather than voe unready.
        watched.read = false;
        following.settle();
      }
      watched.failures.set(entry.name, describeFailure(error));
      if (apiErrorOf(error)?.code === 403) watched.forbidden = true;
      maybeWarn(following.follow, watched);
    }),
    informer.on('served', (served) => {
      if (!served && following.current() === watched)
        following.drop(`the cluster no longer serves ${entry.resource}`);
    }),
  ];
}

/** Starts every cache of the set; each that lists may complete the warning about those that failed. */
function startSet(follow: FollowLonghornOptions, watched: WatchedSet): void {
  for (const entry of watched.entries) {
    void entry.informer.start().catch(() => undefined);
    // A cache that listed first is not named if another fails later.
    void entry.informer.synced.then(
      () => maybeWarn(follow, watched),
      () => undefined,
    );
  }
}

/** Once every cache of the set watched now has listed and is served: the decisions read it. */
function maybeRead(following: Following, watched: WatchedSet): void {
  if (following.stopped() || following.current() !== watched) return;
  if (!watched.entries.every((entry) => entry.informer.inSync && entry.informer.served !== false))
    return;
  watched.listedOnce = true;
  following.settle();
  if (watched.read) return;
  watched.read = true;
  following.follow.logger?.info(
    {
      watching: watched.entries.map((entry) => entry.name),
      objects: watched.entries.reduce((n, entry) => n + entry.informer.keys().length, 0),
    },
    'Longhorn caches synced: Longhorn volumes are judged from its Volumes, Engines and version Setting now',
  );
}

/** Once every cache of a set not read has listed or failed, and some failed: one line naming all that failed, and the fix. */
function maybeWarn(follow: FollowLonghornOptions, watched: WatchedSet): void {
  if (watched.warned || watched.read || watched.failures.size === 0) return;
  if (
    !watched.entries.every((entry) => entry.informer.hasSynced || watched.failures.has(entry.name))
  )
    return;
  watched.warned = true;
  const failed = watched.entries
    .filter((entry) => watched.failures.has(entry.name))
    .map((entry) => entry.name);
  const fix = watched.forbidden
    ? `Apply the Role voe-webhook-longhorn and its RoleBinding of manifests/webhook-rbac.yaml in ${follow.options.longhornNamespace} ` +
      '(kubectl apply -f manifests/webhook-rbac.yaml); voe lists again every few seconds and reads Longhorn once it can, no restart needed.'
    : 'voe lists again every few seconds and reads Longhorn once it can.';
  follow.logger?.warn(
    { cannotList: failed, why: failed.map((name) => watched.failures.get(name)) },
    `Longhorn is installed (the cluster serves ${LONGHORN_API_TEXT}) but voe cannot list ${failed.join(', ')}: ` +
      'Longhorn volumes are judged as if Longhorn were absent (by their StorageClass parameters; the Longhorn version is not read, ' +
      `so a v2 volume is refused under --longhorn-v2-expansion auto) until it can. ${fix}`,
  );
}
