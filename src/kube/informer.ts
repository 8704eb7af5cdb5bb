import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClientConfig } from './kube-client-config.js';
import type { Logger } from '../log/index.js';
import { apiErrorOf, isGone, isNotFound } from './api-error.js';
import { jitteredDelay } from './backoff.js';
import { realClock, sleep, type Clock } from './clock.js';
import {
  afterFailure,
  afterWatch,
  FIRST_REFLECTOR_STATE,
  type ReflectorStep,
  type WatchEnd,
} from './reflector-step.js';
import { IndexedStore } from './indexed-store.js';
import { KubeError, KubeErrorCode } from './kube-error.js';
import { openWatch, requestJson, type WatchEvent } from './kube-request.js';
import { keyOf, objectKey } from './object-key.js';
import { resourcePath, type ResourceRef } from './resource-ref.js';
import { isResourceServed } from './resource-served.js';

export interface InformerHandlers<T> {
  add: (obj: T) => void;
  update: (obj: T, old: T) => void;
  /** `obj` is the last state the informer knew (the final state when a watch delivered it). */
  delete: (obj: T) => void;
  /** A list replaced the cache (first sync and every relist). */
  sync: (info: { items: number; resourceVersion: string; relist: boolean }) => void;
  /** Any list/watch failure; the informer retries by itself. */
  error: (err: unknown) => void;
  /** With `notServedAsEmpty`: the API server answered a list, and whether it serves the resource changed (first answer included). */
  served: (served: boolean) => void;
  /**
   * After the first list: the cache stopped following the API server (false: a list or watch
   * failed, a watch expired with 410 Gone, or a 404 left it in doubt), or follows it again (true:
   * a list succeeded). See `inSync`.
   */
  inSync: (inSync: boolean) => void;
}

/** Why a cache that had listed does not follow the API server now, and since when (clock ms). */
export interface OutOfSync {
  since: number;
  why: string;
}

export type IndexFunc<T> = (obj: T) => string[];

export interface InformerOptions {
  kubeConfig: KubeClientConfig;
  /** Resource to list and watch (`name` is ignored; omit `namespace` for all namespaces). */
  resource: ResourceRef;
  labelSelector?: string;
  fieldSelector?: string;
  /** Restart backoff after failures: jittered exponential, 500 ms .. 30 s unless told. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Server-side watch timeout; a random 300..600 s per watch unless told (as client-go). */
  watchTimeoutSeconds?: number;
  /** List page size (`limit`); 500 unless told. */
  pageSize?: number;
  /**
   * A 404 on list means the API server does not serve the resource (e.g. its CRD is not installed).
   * By default that is a failure like any other: retried with backoff, never synced. With
   * `notServedAsEmpty` it is a synced, empty list (objects cached before are deleted, with events),
   * `served` turns false, and the list is tried again every `notServedRetryMs` (5 s unless told)
   * until the resource is served; then the informer fills and watches as usual. A 404 is only
   * taken as "not served" once discovery (`/apis/<group>/<version>`) confirms the resource is
   * gone: API servers and proxies answer spurious 404s (kubernetes#115241). While discovery still
   * lists it (or cannot be read), the cache is kept as it was but `hasSynced` is false, so readers
   * refuse to decide from it instead of deciding from an empty cache; the next successful list
   * ends that.
   */
  notServedAsEmpty?: boolean;
  /** With `notServedAsEmpty`: how often a resource the cluster does not serve is listed again; NOT_SERVED_RETRY_MS unless told. */
  notServedRetryMs?: number;
  /**
   * Applied to every object a list or watch delivers (added, modified and deleted alike) before it
   * is cached, indexed or handed to handlers, as client-go's SetTransform: e.g. to keep only the
   * fields readers need and so the memory of a large cache small. It must keep
   * metadata.name, namespace and resourceVersion, and must not change the object it is given.
   */
  transform?: (obj: KubernetesObject) => KubernetesObject;
  /**
   * The level of the line `informer list/watch failed; restarting after backoff` for failures
   * before the first list succeeds: 'warn' unless told. 'debug' for an owner that reports such
   * failures itself (the webhook's Longhorn caches, which nothing waits for, warn once instead of
   * every few seconds). Failures after the first list are warnings either way.
   */
  failuresBeforeSyncLogLevel?: 'warn' | 'debug';
  logger?: Logger;
  clock?: Clock;
  random?: () => number;
}

export interface InformerStats {
  lists: number;
  relists: number;
  watches: number;
  failures: number;
  resourceVersion: string;
}

interface ListBody {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items?: Array<Record<string, unknown>>;
}

/** One line saying why a list or watch failed: the API server's Status (code, reason, message), else the error's message. */
export function describeFailure(err: unknown): string {
  const api = apiErrorOf(err);
  const text =
    api && api.code > 0
      ? `${api.code}${api.reason ? ` ${api.reason}` : ''}: ${api.message || 'no message'}`
      : api?.message || (err instanceof Error ? err.message : String(err));
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** How often an informer with `notServedAsEmpty` lists a resource the cluster does not serve again, unless told. */
export const NOT_SERVED_RETRY_MS = 5_000;

type HandlerSets<T> = { [E in keyof InformerHandlers<T>]: Set<InformerHandlers<T>[E]> };

/**
 * List-then-watch cache of one resource that keeps itself converged:
 * - `synced` resolves (and `hasSynced` turns true) after the first successful list;
 * - `inSync` says whether the cache follows the API server now: false from a failed list or watch
 *   (or an expired one) until the next list succeeds, with `outOfSync` saying since when and why;
 * - ANY list or watch error restarts it after jittered exponential backoff (cap 30 s) with a new
 *   list (as client-go's reflector), whose difference to the cache, deletes included, arrives as
 *   events; a watch that ends at its timeout resumes from the last seen resourceVersion (bookmarks
 *   enabled);
 * - 410 Gone (too-old resourceVersion, e.g. after etcd compaction) relists at once: the cache is
 *   replaced and the difference is delivered as add/update/delete events;
 * - handlers run after the cache is updated; a throwing handler is logged and does not stop it;
 * - `notServedAsEmpty`: a resource the API server does not serve (404 on list: no CRD) counts as
 *   synced and empty, and is listed again every few seconds until it is served;
 * - `stop()` aborts the open request, clears its timers and resolves when the loop has exited.
 * Objects are the API server's JSON (timestamps are strings), from list and watch alike.
 */
export class Informer<T extends KubernetesObject = KubernetesObject> {
  readonly synced: Promise<void>;
  readonly #opts: InformerOptions;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #path: string;
  readonly #store = new IndexedStore<T>({
    onIndexError: (err, key) =>
      this.#opts.logger?.error(
        { err, key },
        'informer index function threw; object left out of the index',
      ),
  });
  readonly #handlers: HandlerSets<T> = {
    add: new Set(),
    update: new Set(),
    delete: new Set(),
    sync: new Set(),
    error: new Set(),
    served: new Set(),
    inSync: new Set(),
  };
  readonly #stats: InformerStats = {
    lists: 0,
    relists: 0,
    watches: 0,
    failures: 0,
    resourceVersion: '',
  };
  #resolveSynced!: () => void;
  #rejectSynced!: (e: unknown) => void;
  #hasSynced = false;
  /** A list answered 404 that discovery did not confirm: the cache may be stale. */
  #inDoubt = false;
  /** Set when a list or watch failed (or a watch expired) after the first list; cleared by the next list that succeeds. */
  #outOfSync: OutOfSync | undefined;
  #served: boolean | undefined;
  #abort = new AbortController();
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(options: InformerOptions) {
    this.#opts = options;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#path = resourcePath({ ...options.resource, name: undefined });
    this.synced = new Promise<void>((resolve, reject) => {
      this.#resolveSynced = resolve;
      this.#rejectSynced = reject;
    });
    this.synced.catch(() => undefined);
  }

  /** Listed at least once, and not in doubt since (see `notServedAsEmpty`). */
  get hasSynced(): boolean {
    return this.#hasSynced && !this.#inDoubt;
  }

  /**
   * The cache follows the API server now: it listed, and since the last list that succeeded no
   * list or watch failed and no watch expired (410 Gone). False from such a failure until the next
   * list succeeds: the cache may then lack changes made meanwhile (an object created, changed or
   * deleted while the watch was broken), so a reader that must not decide from a stale cache
   * checks this, not `hasSynced` (which stays true, as client-go's HasSynced does). A watch that
   * ends at its timeout and is resumed from the last resourceVersion does not count: nothing is
   * missed. Known limit: a half-open connection is noticed only by the watch's idle guard
   * (docs/kube.md); until then this stays true.
   */
  get inSync(): boolean {
    return this.hasSynced && this.#outOfSync === undefined;
  }

  /** After the first list, while not `inSync`: since when and why (the last failure). Undefined otherwise. */
  get outOfSync(): Readonly<OutOfSync> | undefined {
    return this.#outOfSync ? { ...this.#outOfSync } : undefined;
  }

  /** Whether the API server served the resource at the last list: undefined before the first answer. */
  get served(): boolean | undefined {
    return this.#served;
  }

  get stats(): Readonly<InformerStats> {
    return { ...this.#stats };
  }

  /** Registers a handler; returns a function that removes it. */
  on<E extends keyof InformerHandlers<T>>(event: E, handler: InformerHandlers<T>[E]): () => void {
    const set = this.#handlers[event] as Set<InformerHandlers<T>[E]>;
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Starts list+watch (idempotent); returns `synced`. */
  start(): Promise<void> {
    if (this.#stopped)
      throw new KubeError(
        KubeErrorCode.InformerStopped,
        `informer for ${this.#path} was stopped; create a new one`,
      );
    this.#running ??= this.#run();
    return this.synced;
  }

  /** Stops for good: aborts the open request, clears timers; resolves when nothing is left running. */
  async stop(): Promise<void> {
    if (!this.#stopped) {
      this.#stopped = true;
      this.#abort.abort();
      if (!this.#hasSynced) {
        this.#rejectSynced(
          new KubeError(
            KubeErrorCode.InformerStopped,
            `informer for ${this.#path} stopped before its first list`,
          ),
        );
      }
    }
    await this.#running;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.#store.get(keyOf(namespace, name));
  }

  getByKey(key: string): T | undefined {
    return this.#store.get(key);
  }

  /** All cached objects, or those of one namespace. */
  list(namespace?: string): T[] {
    return this.#store.list(namespace);
  }

  keys(): string[] {
    return this.#store.keys();
  }

  /** Adds a secondary index (`fn` returns the index keys of an object); built over the current cache. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    this.#store.addIndex(name, fn);
  }

  /** Objects whose index function returned `key` for index `name`. */
  byIndex(name: string, key: string): T[] {
    if (!this.#store.hasIndex(name))
      throw new KubeError(
        KubeErrorCode.InformerUnknownIndex,
        `no index named ${JSON.stringify(name)}; call addIndex first`,
        { details: { name } },
      );
    return this.#store.byIndex(name, key);
  }

  // ---- cache maintenance -------------------------------------------------------------------

  #transform(obj: T): T {
    return this.#opts.transform ? (this.#opts.transform(obj) as T) : obj;
  }

  #emit<E extends keyof InformerHandlers<T>>(
    event: E,
    ...args: Parameters<InformerHandlers<T>[E]>
  ): void {
    for (const h of [...this.#handlers[event]]) {
      const report = (err: unknown): void =>
        this.#opts.logger?.error({ err, event, path: this.#path }, 'informer handler threw');
      try {
        const r = (h as (...a: unknown[]) => unknown)(...args);
        if (r instanceof Promise) r.catch(report);
      } catch (err) {
        report(err);
      }
    }
  }

  #upsert(obj: T): void {
    const key = objectKey(obj);
    const old = this.#store.put(key, obj);
    if (!old) this.#emit('add', obj);
    else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion)
      this.#emit('update', obj, old);
  }

  #replace(items: T[], resourceVersion: string): void {
    const relist = this.#hasSynced;
    const seen = new Set<string>();
    const changes: Array<() => void> = [];
    for (const obj of items) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.#store.put(key, obj);
      if (!old) changes.push(() => this.#emit('add', obj));
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion)
        changes.push(() => this.#emit('update', obj, old));
    }
    for (const key of this.#store.keys()) {
      if (seen.has(key)) continue;
      const old = this.#store.remove(key);
      if (old) changes.push(() => this.#emit('delete', old));
    }
    this.#stats.resourceVersion = resourceVersion;
    this.#stats.lists++;
    if (relist) this.#stats.relists++;
    for (const c of changes) c();
    if (!this.#hasSynced) {
      this.#hasSynced = true;
      this.#resolveSynced();
    }
    this.#emit('sync', { items: items.length, resourceVersion, relist });
  }

  /** A list succeeded (or found the resource not served): the cache follows the API server again. */
  #backInSync(): void {
    const was = this.#outOfSync;
    this.#outOfSync = undefined;
    if (was) this.#emit('inSync', true);
  }

  /** The cache may miss changes from now until a list succeeds (`inSync` false). */
  #fallOutOfSync(why: string): void {
    // Before the first list the cache is not synced at all (`hasSynced`), which says more.
    if (!this.#hasSynced) return;
    if (this.#outOfSync) {
      this.#outOfSync.why = why;
      return;
    }
    this.#outOfSync = { since: this.#clock.now(), why };
    this.#emit('inSync', false);
  }

  // ---- list and watch ------------------------------------------------------------------------

  async #list(): Promise<void> {
    const items: T[] = [];
    let cont: string | undefined;
    let rv: string;
    do {
      const body = await requestJson<ListBody>(this.#opts.kubeConfig, {
        method: 'GET',
        path: this.#path,
        signal: this.#abort.signal,
        timeoutMs: 60_000,
        query: {
          limit: this.#opts.pageSize ?? 500,
          continue: cont,
          labelSelector: this.#opts.labelSelector,
          fieldSelector: this.#opts.fieldSelector,
        },
      });
      const kind = body.kind?.replace(/List$/, '');
      for (const item of body.items ?? [])
        items.push(this.#transform({ apiVersion: body.apiVersion, kind, ...item } as T));
      cont = body.metadata?.continue || undefined;
      rv = body.metadata?.resourceVersion ?? '';
    } while (cont && !this.#stopped);
    if (this.#stopped) return;
    this.#replace(items, rv);
    this.#inDoubt = false;
    this.#backInSync();
    this.#setServed(true);
  }

  /**
   * After a 404 on list: whether discovery confirms the API server does not serve the resource
   * (its group/version is not served, or does not list the plural). False when discovery lists it
   * or cannot be read.
   */
  async #confirmNotServed(): Promise<boolean> {
    try {
      return !(await isResourceServed(
        this.#opts.kubeConfig,
        this.#opts.resource,
        this.#abort.signal,
      ));
    } catch (err) {
      this.#opts.logger?.warn(
        { path: this.#path, error: err instanceof Error ? err.message : String(err) },
        'discovery failed after a 404; keeping the cache, not synced',
      );
      return false;
    }
  }

  #setServed(served: boolean): void {
    if (this.#served === served) return;
    this.#served = served;
    this.#emit('served', served);
  }

  /** `notServedAsEmpty` and the list was 404: nothing of this resource exists. */
  #notServed(): void {
    this.#replace([], '');
    this.#backInSync();
    this.#setServed(false);
  }

  /** Watches until the stream ends. Resolves 'gone' on 410, 'closed' on a clean end; rejects on errors. */
  #watch(): Promise<{ outcome: 'gone' | 'closed'; events: number }> {
    const timeoutSeconds = this.#opts.watchTimeoutSeconds ?? Math.floor(300 * (1 + this.#random()));
    let events = 0;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void): void => {
        if (!settled) {
          settled = true;
          this.#abort.signal.removeEventListener('abort', onStop);
          fn();
        }
      };
      const onStop = (): void => settle(() => resolve({ outcome: 'closed', events }));
      this.#abort.signal.addEventListener('abort', onStop, { once: true });
      let handleAbort: (() => void) | undefined;
      const onEvent = (ev: WatchEvent): void => {
        if (settled) return;
        if (ev.type === 'ERROR') {
          handleAbort?.();
          const status = ev.object;
          settle(() =>
            isGone(status) ? resolve({ outcome: 'gone', events }) : reject(watchError(status)),
          );
          return;
        }
        this.#apply(ev);
        if (ev.type !== 'BOOKMARK') events++;
      };
      openWatch(this.#opts.kubeConfig, {
        path: this.#path,
        signal: this.#abort.signal,
        idleTimeoutMs: (timeoutSeconds + 30) * 1000,
        query: {
          resourceVersion: this.#stats.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
          labelSelector: this.#opts.labelSelector,
          fieldSelector: this.#opts.fieldSelector,
        },
        onEvent,
        onDone: (err) => settle(() => (err ? reject(err) : resolve({ outcome: 'closed', events }))),
      }).then(
        (h) => {
          handleAbort = () => h.abort();
          if (settled) h.abort();
        },
        (err) => settle(() => (isGone(err) ? resolve({ outcome: 'gone', events }) : reject(err))),
      );
    });
  }

  /** Applies an ADDED, MODIFIED, DELETED or BOOKMARK event to the cache and records its resourceVersion. */
  #apply(ev: WatchEvent): void {
    const changed = ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED';
    const obj = changed ? this.#transform(ev.object as unknown as T) : (ev.object as unknown as T);
    if (ev.type === 'ADDED' || ev.type === 'MODIFIED') this.#upsert(obj);
    else if (ev.type === 'DELETED') {
      const old = this.#store.remove(objectKey(obj));
      if (old) this.#emit('delete', obj);
    }
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.#stats.resourceVersion = rv;
  }

  /**
   * The list-and-watch loop: list when needed, then watch until the stream ends; after each round
   * the next state comes from afterWatch or afterFailure (pure), and #afterRound reports it and
   * waits (backoff after failures).
   */
  async #run(): Promise<void> {
    const baseMs = this.#opts.backoffBaseMs ?? 500;
    const notServedAsEmpty = this.#opts.notServedAsEmpty === true;
    let state = FIRST_REFLECTOR_STATE;
    while (!this.#stopped) {
      let step: ReflectorStep;
      try {
        if (state.needList) {
          const listed = await this.#listOrLookIntoNotFound();
          if (listed === 'stopped') break;
          if (listed === 'not-found') {
            state = { ...state, failures: 0, lastGone: false };
            await sleep(
              this.#clock,
              this.#opts.notServedRetryMs ?? NOT_SERVED_RETRY_MS,
              this.#abort.signal,
            );
            continue;
          }
          state = { ...state, needList: false };
        }
        if (this.#stopped) break;
        step = afterWatch(state, await this.#watchOnce(), baseMs);
      } catch (err) {
        step = afterFailure(state, err, notServedAsEmpty);
      }
      if (this.#stopped) break;
      state = step.state;
      await this.#afterRound(step);
    }
  }

  /**
   * Lists. With `notServedAsEmpty`, a 404 is looked into (discovery) rather than thrown: 'not-found'
   * once the cache is empty and not served (discovery confirms it) or kept in doubt (discovery
   * still lists the resource); the caller lists again later. Other failures throw.
   */
  async #listOrLookIntoNotFound(): Promise<'listed' | 'not-found' | 'stopped'> {
    try {
      await this.#list();
      return 'listed';
    } catch (err) {
      if (this.#opts.notServedAsEmpty !== true || !isNotFound(err)) throw err;
      if (this.#stopped) return 'stopped';
      const notServed = await this.#confirmNotServed();
      if (this.#stopped) return 'stopped';
      if (notServed) {
        this.#inDoubt = false;
        this.#notServed();
      } else {
        if (!this.#inDoubt) {
          this.#opts.logger?.warn(
            { path: this.#path, cached: this.#store.size },
            'list answered 404 but discovery still lists the resource; keeping the cache, not synced until a list succeeds',
          );
        }
        this.#inDoubt = true;
        this.#fallOutOfSync(
          'the list answered 404 Not Found while discovery still lists the resource',
        );
      }
      return 'not-found';
    }
  }

  /** One watch, counted; how it ended and how long it lasted. */
  async #watchOnce(): Promise<WatchEnd> {
    const started = this.#clock.now();
    this.#stats.watches++;
    const { outcome, events } = await this.#watch();
    if (outcome === 'gone') {
      this.#opts.logger?.info(
        { path: this.#path, resourceVersion: this.#stats.resourceVersion },
        'watch resourceVersion expired (410 Gone); relisting',
      );
    }
    return { outcome, events, elapsedMs: this.#clock.now() - started };
  }

  /** Says how the round ended (out of sync, the error event), then waits: the backoff after failures, else the step's pause. */
  async #afterRound(step: ReflectorStep): Promise<void> {
    const { failures } = step.state;
    if (step.failure) {
      this.#fallOutOfSync(describeFailure(step.failure.error));
      this.#stats.failures++;
      this.#emit('error', step.failure.error);
    } else if (step.state.needList) {
      // A watch expired (410 Gone) without counting as a failure: the cache lags until the relist.
      this.#fallOutOfSync(
        'the watch expired (410 Gone: its resourceVersion is too old); listing again',
      );
    }
    if (failures > 0) {
      const backoff = {
        baseMs: this.#opts.backoffBaseMs ?? 500,
        maxMs: this.#opts.backoffMaxMs ?? 30_000,
      };
      const delay = jitteredDelay(failures, backoff, this.#random);
      const level = this.#hasSynced ? 'warn' : (this.#opts.failuresBeforeSyncLogLevel ?? 'warn');
      this.#opts.logger?.[level](
        { err: step.failure?.error, path: this.#path, failures, retryInMs: Math.round(delay) },
        'informer list/watch failed; restarting after backoff',
      );
      await sleep(this.#clock, delay, this.#abort.signal);
    } else if (step.pauseMs > 0) {
      await sleep(this.#clock, step.pauseMs, this.#abort.signal);
    }
  }
}

/** The error a watch's ERROR event carries (its Status: code, message, and the body as sent). */
function watchError(status: Record<string, unknown>): Error {
  return Object.assign(new Error(`watch error: ${apiErrorOf(status)?.message ?? 'unknown'}`), {
    code: apiErrorOf(status)?.code,
    body: JSON.stringify(status),
  });
}
