import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClientConfig } from '../kube/index.js';
import type { Clock, IndexFunc } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import { resolveAdmissionOptions, type AdmissionOptions } from '../admission/index.js';
import type { AdmissionInformer, AdmissionInformerContext } from './admission-informer.js';
import {
  admissionIndexers,
  ENGINES_BY_VOLUME_INDEX,
  VMIS_BY_PVC_INDEX,
  VMS_BY_PVC_INDEX,
  VOLUMES_BY_PV_INDEX,
  type AdmissionCaches,
} from './cache-snapshot-source.js';
import type { Cache } from './cache.js';
import { followLonghorn, type LonghornFollower } from './follow-longhorn.js';
import {
  type CsiDriver,
  type VirtualMachine,
  type VirtualMachineInstance,
  leanVm,
  leanVmi,
} from '../model/index.js';
import { watchAdmissionResource } from './watch-admission-resource.js';
export { ADMISSION_CACHE_BACKOFF_MAX_MS } from './admission-informer.js';

/** The informer-backed caches of the admission validators, started and synced together. */
export interface StartedAdmissionCaches {
  caches: { admission: AdmissionCaches; csiDrivers: Cache<CsiDriver> };
  /**
   * True while every informer the decisions read follows the API server: it has listed (a
   * resource the cluster does not serve counts, as empty) and no list or watch of it failed since
   * its last list that succeeded (Informer.inSync). Under `longhorn: 'auto'` Longhorn's caches
   * found after start count once they have all listed, those watched from the start unless one
   * fails before they have (`notRead` meanwhile).
   */
  ready(): boolean;
  /**
   * Resources whose cache does not follow the API server: the first list has not succeeded yet
   * (e.g. refused: 403), or a list or watch failed since the last one that did, as
   * `plural.group[ in namespace]`.
   */
  unsynced(): string[];
  /** Custom resources the cluster does not serve (no CRD) at the moment: cached as empty, listed again every 5 s. */
  notServed(): string[];
  /**
   * Resources the cluster serves and voe watches, but the decisions do not read yet because their
   * caches have not all listed (`longhorn: 'auto'`: Longhorn found after start, or its caches
   * cannot list, e.g. its Role not applied: 403). They do not make voe unready.
   */
  notRead(): string[];
  stop(): Promise<void>;
}

export interface StartAdmissionCachesOptions {
  kubeConfig: KubeClientConfig;
  logger?: Logger;
  options?: Partial<AdmissionOptions>;
  /**
   * Watch Longhorn Volumes, Engines and Settings: true (default) always, false never (clusters
   * without Longhorn), 'auto' while the cluster serves them (`longhornServed` says whether it does
   * at start; discovery is asked every 5 s while it does not: followLonghorn).
   */
  longhorn?: boolean | 'auto';
  /** With `longhorn: 'auto'`: whether the cluster serves Longhorn's API now (isLonghornServed); default false. */
  longhornServed?: boolean;
  /** With `longhorn: 'auto'`: how often discovery is asked while Longhorn is not read (default 5 s; tests). */
  longhornLookIntervalMs?: number;
  /** The informers' clock and jitter (tests). */
  clock?: Clock;
  random?: () => number;
}

/**
 * Starts one informer per resource the admission path reads (PVCs, StorageClasses, CSIDrivers,
 * VMs and VMIs indexed by PVC (cached lean: leanVm, leanVmi), the configured KubeVirt CR, the csi-online-expand-validation Setting, and
 * Longhorn Volumes/Engines and its version Setting in the Longhorn namespace; the three single
 * objects by name, so RBAC may grant only them). Does not wait for the sync:
 * `ready()` says when, and the validators refuse with 500 until then. A custom resource the
 * cluster does not serve (its CRD is not installed) counts as synced and empty, with one warning
 * naming it and what that means for the decisions; its informer lists again every 5 s and fills
 * once the CRD appears. A cache whose list or watch fails later (RBAC revoked, the API server
 * restarted, a broken watch) does not follow the API server until its next list succeeds:
 * `ready()` is false meanwhile, the validators refuse with 500 (cache-out-of-sync) rather than
 * judge from what may be stale, and a warning names it (an info line once it follows again).
 * With `longhorn: 'auto'` the Longhorn caches follow Longhorn's API (followLonghorn): watched from
 * the start when it is served then, else started once discovery lists it and read by the
 * decisions once they have all listed; stopped again when it goes away.
 */
export function startAdmissionCaches(start: StartAdmissionCachesOptions): StartedAdmissionCaches {
  const options = resolveAdmissionOptions(start.options);
  const context: AdmissionInformerContext = {
    kubeConfig: start.kubeConfig,
    ...(start.logger ? { logger: start.logger } : {}),
    ...(start.clock ? { clock: start.clock } : {}),
    ...(start.random ? { random: start.random } : {}),
  };
  const fixed: AdmissionInformer[] = [];
  const make = <T extends KubernetesObject>(
    group: string,
    version: string,
    plural: string,
    namespace?: string,
    indexers: Record<string, IndexFunc<T>> = {},
    name?: string,
    transform?: (object: T) => T,
  ): AdmissionInformer<T>['informer'] => {
    const cache = watchAdmissionResource<T>(context, {
      group,
      version,
      plural,
      indexers,
      ...(namespace === undefined ? {} : { namespace }),
      ...(name === undefined ? {} : { name }),
      ...(transform === undefined ? {} : { transform }),
    });
    fixed.push(cache as unknown as AdmissionInformer);
    return cache.informer;
  };
  const admission = clusterCaches(make, options);
  const longhorn =
    start.longhorn === 'auto'
      ? followLonghornCaches(admission, context, options, start)
      : undefined;
  if (!longhorn && (start.longhorn ?? true)) longhornCaches(admission, make, options);
  // The CSIDriver cache is named last, after Longhorn's (as the caches-synced line lists them).
  const csiDrivers = make<CsiDriver & KubernetesObject>('storage.k8s.io', 'v1', 'csidrivers');
  const counted = (): AdmissionInformer[] => countedCaches(fixed, longhorn);
  const named = (pick: (informer: AdmissionInformer['informer']) => boolean): string[] =>
    counted()
      .filter((cache) => pick(cache.informer))
      .map((cache) => cache.name);
  for (const cache of fixed) void cache.informer.start().catch(() => undefined);
  void Promise.all([...fixed.map((cache) => cache.informer.synced), longhorn?.settled]).then(
    () => logCachesSynced(start.logger, counted()),
    () => undefined,
  );
  return {
    caches: { admission, csiDrivers },
    ready: () => counted().every((cache) => cache.informer.inSync),
    unsynced: () => named((informer) => !informer.inSync),
    notServed: () => named((informer) => informer.served === false),
    notRead: () => longhorn?.notRead() ?? [],
    stop: async () => {
      await Promise.all([...fixed.map((cache) => cache.informer.stop()), longhorn?.stop()]);
    },
  };
}

/** Creates (and lists among the fixed caches) the informer of one resource: startAdmissionCaches's `make`. */
type MakeInformer = <T extends KubernetesObject>(
  group: string,
  version: string,
  plural: string,
  namespace?: string,
  indexers?: Record<string, IndexFunc<T>>,
  name?: string,
  transform?: (object: T) => T,
) => AdmissionInformer<T>['informer'];

/** The caches of Kubernetes, KubeVirt and Harvester the decisions read (Longhorn's are added apart). */
function clusterCaches(make: MakeInformer, options: AdmissionOptions): AdmissionCaches {
  return {
    pvcs: make('', 'v1', 'persistentvolumeclaims'),
    storageClasses: make('storage.k8s.io', 'v1', 'storageclasses'),
    // Cached lean: name, the volumeClaimTemplates annotation, the PVC and DataVolume volumes and
    // printableStatus, what vmUsers and the VMS_BY_PVC_INDEX read (a VM's JSON is several KiB).
    vms: make<VirtualMachine & KubernetesObject>(
      'kubevirt.io',
      'v1',
      'virtualmachines',
      undefined,
      { [VMS_BY_PVC_INDEX]: admissionIndexers.vms[VMS_BY_PVC_INDEX] },
      undefined,
      (vm) => leanVm(vm) as VirtualMachine & KubernetesObject,
    ),
    // Cached lean: only the volumes, phase and owner the decisions read (a running VMI's JSON is several KiB).
    vmis: make<VirtualMachineInstance & KubernetesObject>(
      'kubevirt.io',
      'v1',
      'virtualmachineinstances',
      undefined,
      { [VMIS_BY_PVC_INDEX]: admissionIndexers.vmis[VMIS_BY_PVC_INDEX] },
      undefined,
      (vmi) => leanVmi(vmi) as VirtualMachineInstance & KubernetesObject,
    ),
    kubeVirts: make(
      'kubevirt.io',
      'v1',
      'kubevirts',
      options.kubeVirtNamespace,
      {},
      options.kubeVirtName,
    ),
    settings: make('harvesterhci.io', 'v1beta1', 'settings', undefined, {}, options.settingName),
  };
}

/** `longhorn: true`: Longhorn's caches watched for the whole run, as fixed caches. */
function longhornCaches(
  admission: AdmissionCaches,
  make: MakeInformer,
  options: AdmissionOptions,
): void {
  admission.longhornVolumes = make('longhorn.io', 'v1beta2', 'volumes', options.longhornNamespace, {
    [VOLUMES_BY_PV_INDEX]: admissionIndexers.longhornVolumes[VOLUMES_BY_PV_INDEX],
  });
  admission.longhornEngines = make('longhorn.io', 'v1beta2', 'engines', options.longhornNamespace, {
    [ENGINES_BY_VOLUME_INDEX]: admissionIndexers.longhornEngines[ENGINES_BY_VOLUME_INDEX],
  });
  admission.longhornSettings = make(
    'longhorn.io',
    'v1beta2',
    'settings',
    options.longhornNamespace,
    {},
    options.longhornVersionSetting,
  );
}

/** `longhorn: 'auto'`: Longhorn's caches follow its API (followLonghorn), read by the decisions while present. */
function followLonghornCaches(
  admission: AdmissionCaches,
  context: AdmissionInformerContext,
  options: AdmissionOptions,
  start: StartAdmissionCachesOptions,
): LonghornFollower {
  const follower = followLonghorn({
    ...context,
    options,
    servedAtStart: start.longhornServed === true,
    ...(start.longhornLookIntervalMs === undefined
      ? {}
      : { intervalMs: start.longhornLookIntervalMs }),
  });
  // Read at each call (createCacheSnapshotSource): present while the decisions read Longhorn.
  Object.defineProperties(admission, {
    longhornVolumes: { enumerable: true, get: () => follower.read?.volumes.informer },
    longhornEngines: { enumerable: true, get: () => follower.read?.engines.informer },
    longhornSettings: { enumerable: true, get: () => follower.read?.settings.informer },
  });
  return follower;
}

/** The caches the decisions read now, in the order they are named: the CSIDriver cache (the last fixed one) after Longhorn's. */
function countedCaches(
  fixed: AdmissionInformer[],
  longhorn: LonghornFollower | undefined,
): AdmissionInformer[] {
  const last = fixed.length - 1;
  return longhorn ? [...fixed.slice(0, last), ...longhorn.counted(), ...fixed.slice(last)] : fixed;
}

/** One line when every cache has listed once (Longhorn's: or failed, then not read): what readiness waited for, and what is watched. */
function logCachesSynced(logger: Logger | undefined, caches: AdmissionInformer[]): void {
  logger?.info(
    {
      watching: caches.map((cache) => cache.name),
      objects: caches.reduce((n, cache) => n + cache.informer.keys().length, 0),
      notServed: caches
        .filter((cache) => cache.informer.served === false)
        .map((cache) => cache.name),
    },
    'admission caches synced',
  );
}
