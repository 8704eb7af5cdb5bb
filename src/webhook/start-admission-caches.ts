import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { Informer, type Clock, type IndexFunc } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import { resolveAdmissionOptions, type AdmissionOptions } from './admission-options.js';
import {
  admissionIndexers, ENGINES_BY_VOLUME_INDEX, VMIS_BY_PVC_INDEX, VMS_BY_PVC_INDEX, VOLUMES_BY_PV_INDEX, type AdmissionCaches,
} from './cache-snapshot-source.js';
import type { Cache } from './cache.js';
import type { CsiDriver, VirtualMachineInstance } from './kube-objects.js';
import { leanVmi } from './lean-vmi.js';

/** The informer-backed caches of the admission validators, started and synced together. */
export interface StartedAdmissionCaches {
  caches: { admission: AdmissionCaches; csiDrivers: Cache<CsiDriver> };
  /**
   * True while every informer follows the API server: it has listed (a resource the cluster does
   * not serve counts, as empty) and no list or watch of it failed since its last list that
   * succeeded (Informer.inSync).
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
  stop(): Promise<void>;
}

export interface StartAdmissionCachesOptions {
  kubeConfig: KubeConfig;
  logger?: Logger;
  options?: Partial<AdmissionOptions>;
  /** Watch Longhorn Volumes, Engines and Settings (default true); off on clusters without Longhorn. */
  longhorn?: boolean;
  /** The informers' clock and jitter (tests). */
  clock?: Clock;
  random?: () => number;
}

/**
 * The longest wait of an admission informer between failed lists or watches (jittered exponential
 * from 500 ms). Lower than the informer's 30 s default: a cache that does not follow the API server
 * makes every growing resize a 500, so after an outage it must list again soon once the API server
 * answers (with 30 s, a 25 s outage left the caches unsynced 20 s and more after the API server was
 * back). Ten informers listing at most every 5 s each are a negligible load.
 */
export const ADMISSION_CACHE_BACKOFF_MAX_MS = 5_000;

/**
 * What the decisions make of an empty cache, for the warning when the cluster does not serve a
 * custom resource (docs/admission.md): the informer then holds nothing until its CRD appears.
 */
const WHEN_NOT_SERVED: Record<string, string> = {
  'virtualmachines.kubevirt.io': 'no VirtualMachine uses any PVC, so growing PVCs are allowed as offline expansions',
  'virtualmachineinstances.kubevirt.io': 'no VirtualMachineInstance runs, so only VirtualMachines say which PVCs running VMs use',
  'kubevirts.kubevirt.io': 'the KubeVirt CR is missing: a growing PVC of a running VM is refused with 500 (kubevirt-missing)',
  'settings.harvesterhci.io': 'the Setting is missing: Harvester\'s default {"driver.longhorn.io":true} applies, with an admission warning',
  'volumes.longhorn.io': 'Longhorn volumes are judged by their StorageClass parameters',
  'engines.longhorn.io': 'Longhorn volumes are judged by their StorageClass parameters',
  'settings.longhorn.io': 'the Longhorn version is unknown: v2 volumes are refused under longhornV2Expansion auto',
};

/**
 * Starts one informer per resource the admission path reads (PVCs, StorageClasses, CSIDrivers,
 * VMs and VMIs indexed by PVC (VMIs cached lean: leanVmi), the configured KubeVirt CR, the csi-online-expand-validation Setting, and
 * Longhorn Volumes/Engines and its version Setting in the Longhorn namespace; the three single
 * objects by name, so RBAC may grant only them). Does not wait for the sync:
 * `ready()` says when, and the validators refuse with 500 until then. A custom resource the
 * cluster does not serve (its CRD is not installed) counts as synced and empty, with one warning
 * naming it and what that means for the decisions; its informer lists again every 5 s and fills
 * once the CRD appears. A cache whose list or watch fails later (RBAC revoked, the API server
 * restarted, a broken watch) does not follow the API server until its next list succeeds:
 * `ready()` is false meanwhile, the validators refuse with 500 (cache-out-of-sync) rather than
 * judge from what may be stale, and a warning names it (an info line once it follows again).
 */
export function startAdmissionCaches(start: StartAdmissionCachesOptions): StartedAdmissionCaches {
  const options = resolveAdmissionOptions(start.options);
  const informers: Array<Informer<KubernetesObject>> = [];
  const watched: string[] = [];
  const make = <T extends KubernetesObject>(group: string, version: string, plural: string, namespace?: string,
    indexers: Record<string, IndexFunc<T>> = {}, name?: string, transform?: (object: T) => T): Informer<T> => {
    const resource = `${plural}${group ? `.${group}` : ''}`;
    const when = WHEN_NOT_SERVED[resource];
    const informer = new Informer<T>({
      kubeConfig: start.kubeConfig,
      resource: { group, version, plural, ...(namespace ? { namespace } : {}) },
      // Only the one object read: RBAC can then grant just it (resourceNames), and the cache holds
      // nothing else (Harvester's ssl-certificates Setting carries a private key).
      ...(name === undefined ? {} : { fieldSelector: `metadata.name=${name}` }),
      ...(start.logger ? { logger: start.logger.child({ informer: `${plural}.${group || 'core'}` }) } : {}),
      // Custom resources may be missing from a cluster (no KubeVirt, Harvester or Longhorn CRDs).
      ...(when === undefined ? {} : { notServedAsEmpty: true }),
      ...(transform === undefined ? {} : { transform: transform as unknown as (object: KubernetesObject) => KubernetesObject }),
      backoffMaxMs: ADMISSION_CACHE_BACKOFF_MAX_MS,
      ...(start.clock ? { clock: start.clock } : {}),
      ...(start.random ? { random: start.random } : {}),
    });
    for (const [name, fn] of Object.entries(indexers)) informer.addIndex(name, fn);
    informer.on('inSync', (inSync) => {
      if (inSync) {
        start.logger?.info({ resource }, `the cache of ${resource} follows the API server again (listed): reviews are judged from it`);
      } else {
        start.logger?.warn({ resource, why: informer.outOfSync?.why },
          `the cache of ${resource} no longer follows the API server (its list or watch failed): ` +
          'PVC resize and VM reviews are refused with 500 (cache-out-of-sync) until a list succeeds');
      }
    });
    if (when !== undefined) {
      let wasServed: boolean | undefined;
      informer.on('served', (served) => {
        if (!served) {
          start.logger?.warn({ resource, apiVersion: `${group}/${version}`, means: when },
            `the cluster does not serve ${resource} (no CRD): watched as empty until it does (listed again every 5 s)`);
        } else if (wasServed === false) {
          start.logger?.info({ resource }, `the cluster now serves ${resource}: its cache fills`);
        }
        wasServed = served;
      });
    }
    watched.push(`${resource}${name === undefined ? '' : `/${name}`}${namespace ? ` in ${namespace}` : ''}`);
    informers.push(informer as unknown as Informer<KubernetesObject>);
    return informer;
  };
  const named = (pick: (informer: Informer<KubernetesObject>) => boolean): string[] =>
    watched.filter((_, i) => pick(informers[i]!));
  const admission: AdmissionCaches = {
    pvcs: make('', 'v1', 'persistentvolumeclaims'),
    storageClasses: make('storage.k8s.io', 'v1', 'storageclasses'),
    vms: make('kubevirt.io', 'v1', 'virtualmachines', undefined, { [VMS_BY_PVC_INDEX]: admissionIndexers.vms[VMS_BY_PVC_INDEX] }),
    // Cached lean: only the volumes, phase and owner the decisions read (a running VMI's JSON is several KiB).
    vmis: make<VirtualMachineInstance & KubernetesObject>('kubevirt.io', 'v1', 'virtualmachineinstances', undefined,
      { [VMIS_BY_PVC_INDEX]: admissionIndexers.vmis[VMIS_BY_PVC_INDEX] }, undefined, (vmi) => leanVmi(vmi) as VirtualMachineInstance & KubernetesObject),
    kubeVirts: make('kubevirt.io', 'v1', 'kubevirts', options.kubeVirtNamespace, {}, options.kubeVirtName),
    settings: make('harvesterhci.io', 'v1beta1', 'settings', undefined, {}, options.settingName),
  };
  if (start.longhorn ?? true) {
    admission.longhornVolumes = make('longhorn.io', 'v1beta2', 'volumes', options.longhornNamespace,
      { [VOLUMES_BY_PV_INDEX]: admissionIndexers.longhornVolumes[VOLUMES_BY_PV_INDEX] });
    admission.longhornEngines = make('longhorn.io', 'v1beta2', 'engines', options.longhornNamespace,
      { [ENGINES_BY_VOLUME_INDEX]: admissionIndexers.longhornEngines[ENGINES_BY_VOLUME_INDEX] });
    admission.longhornSettings = make('longhorn.io', 'v1beta2', 'settings', options.longhornNamespace, {}, options.longhornVersionSetting);
  }
  const csiDrivers = make<CsiDriver & KubernetesObject>('storage.k8s.io', 'v1', 'csidrivers');
  for (const informer of informers) void informer.start().catch(() => undefined);
  // One line when every cache has listed once: what readiness waited for, and what is watched.
  void Promise.all(informers.map((informer) => informer.synced)).then(
    () => start.logger?.info({
      watching: watched, objects: informers.reduce((n, informer) => n + informer.keys().length, 0),
      notServed: named((informer) => informer.served === false),
    }, 'admission caches synced'),
    () => undefined,
  );
  return {
    caches: { admission, csiDrivers },
    ready: () => informers.every((informer) => informer.inSync),
    unsynced: () => named((informer) => !informer.inSync),
    notServed: () => named((informer) => informer.served === false),
    stop: async () => { await Promise.all(informers.map((informer) => informer.stop())); },
  };
}
