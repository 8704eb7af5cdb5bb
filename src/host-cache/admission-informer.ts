import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClientConfig } from '../kube/index.js';
import { Informer, type Clock, type IndexFunc } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import { withoutManagedFields } from './without-managed-fields.js';

/**
 * The longest wait of an admission informer between failed lists or watches (jittered exponential
 * from 500 ms). Lower than the informer's 30 s default: a cache that does not follow the API server
 * makes every growing resize a 500, so after an outage it must list again soon once the API server
 * answers (with 30 s, a 25 s outage left the caches unsynced 20 s and more after the API server was
 * back). Ten informers listing at most every 5 s each are a negligible load.
 */
export const ADMISSION_CACHE_BACKOFF_MAX_MS = 5_000;

/** What every admission informer shares: where it lists, how it logs, its clock. */
export interface AdmissionInformerContext {
  kubeConfig: KubeClientConfig;
  logger?: Logger;
  clock?: Clock;
  random?: () => number;
}

export interface AdmissionInformerSpec<T> {
  group: string;
  version: string;
  plural: string;
  namespace?: string;
  indexers?: Record<string, IndexFunc<T>>;
  /** Only this object: RBAC may then grant just it (resourceNames). */
  name?: string;
  /** A custom resource the cluster may not serve (no CRD): a 404 then means an empty cache (Informer notServedAsEmpty). */
  notServedAsEmpty?: boolean;
  /** See InformerOptions.failuresBeforeSyncLogLevel. */
  failuresBeforeSyncLogLevel?: 'warn' | 'debug';
  /**
   * See InformerOptions.transform: what the cache keeps of each object (e.g. leanVmi); by default
   * the object without its managedFields (withoutManagedFields). One given replaces that default.
   */
  transform?: (object: T) => T;
}

/** One informer of the admission caches, not started. */
export interface AdmissionInformer<T extends KubernetesObject = KubernetesObject> {
  informer: Informer<T>;
  /** `plural.group`, as the decisions' messages and the log name it. */
  resource: string;
  /** What the logs and /readyz call this cache: `plural.group[/name][ in namespace]`. */
  name: string;
}

/** Creates (does not start) one admission informer with the shared backoff, logger and selectors. */
export function createAdmissionInformer<T extends KubernetesObject>(
  context: AdmissionInformerContext,
  spec: AdmissionInformerSpec<T>,
): AdmissionInformer<T> {
  const { group, plural, name, namespace } = spec;
  const resource = `${plural}${group ? `.${group}` : ''}`;
  const informer = new Informer<T>({
    kubeConfig: context.kubeConfig,
    resource: { group, version: spec.version, plural, ...(namespace ? { namespace } : {}) },
    // Only the one object read: RBAC can then grant just it (resourceNames), and the cache holds
    // nothing else (Harvester's ssl-certificates Setting carries a private key).
    ...(name === undefined ? {} : { fieldSelector: `metadata.name=${name}` }),
    ...(context.logger
      ? { logger: context.logger.child({ informer: `${plural}.${group || 'core'}` }) }
      : {}),
    ...(spec.notServedAsEmpty ? { notServedAsEmpty: true } : {}),
    ...(spec.failuresBeforeSyncLogLevel
      ? { failuresBeforeSyncLogLevel: spec.failuresBeforeSyncLogLevel }
      : {}),
    transform: (spec.transform ?? withoutManagedFields) as unknown as (
      object: KubernetesObject,
    ) => KubernetesObject,
    backoffMaxMs: ADMISSION_CACHE_BACKOFF_MAX_MS,
    ...(context.clock ? { clock: context.clock } : {}),
    ...(context.random ? { random: context.random } : {}),
  });
  for (const [index, fn] of Object.entries(spec.indexers ?? {})) informer.addIndex(index, fn);
  return {
    informer,
    resource,
    name: `${resource}${name === undefined ? '' : `/${name}`}${namespace ? ` in ${namespace}` : ''}`,
  };
}

/**
 * Logs a change of an admission cache's `inSync` (Informer): the warning that reviews are refused
 * with 500 while it does not follow the API server, and the info line once it follows again.
 */
export function logInSyncChange(
  logger: Logger | undefined,
  cache: AdmissionInformer,
  inSync: boolean,
): void {
  const { resource } = cache;
  if (inSync) {
    logger?.info(
      { resource },
      `the cache of ${resource} follows the API server again (listed): reviews are judged from it`,
    );
  } else {
    logger?.warn(
      { resource, why: cache.informer.outOfSync?.why },
      `the cache of ${resource} no longer follows the API server (its list or watch failed): ` +
        'PVC resize and VM reviews are refused with 500 (cache-out-of-sync) until a list succeeds',
    );
  }
}
