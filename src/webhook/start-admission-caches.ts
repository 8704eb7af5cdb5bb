import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { Informer, type IndexFunc } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import { resolveAdmissionOptions, type AdmissionOptions } from './admission-options.js';
import { admissionIndexers, ENGINES_BY_VOLUME_INDEX, VMS_BY_PVC_INDEX, type AdmissionCaches } from './cache-snapshot-source.js';
import type { Cache } from './cache.js';
import type { CsiDriver } from './kube-objects.js';

/** The informer-backed caches of the admission validators, started and synced together. */
export interface StartedAdmissionCaches {
  caches: { admission: AdmissionCaches; csiDrivers: Cache<CsiDriver> };
  /** True once every informer has listed once. */
  ready(): boolean;
  stop(): Promise<void>;
}

export interface StartAdmissionCachesOptions {
  kubeConfig: KubeConfig;
  logger?: Logger;
  options?: Partial<AdmissionOptions>;
  /** Watch Longhorn Volumes, Engines and Settings (default true); off on clusters without Longhorn. */
  longhorn?: boolean;
}

/**
 * Starts one informer per resource the admission path reads (PVCs, StorageClasses, CSIDrivers,
 * VMs indexed by PVC, the KubeVirt CRs of the configured namespace, Harvester Settings, and
 * Longhorn Volumes/Engines/Settings in the Longhorn namespace). Does not wait for the sync:
 * `ready()` says when, and the validators refuse with 500 until then.
 */
export function startAdmissionCaches(start: StartAdmissionCachesOptions): StartedAdmissionCaches {
  const options = resolveAdmissionOptions(start.options);
  const informers: Array<Informer<KubernetesObject>> = [];
  const watched: string[] = [];
  const make = <T extends KubernetesObject>(group: string, version: string, plural: string, namespace?: string,
    indexers: Record<string, IndexFunc<T>> = {}): Informer<T> => {
    const informer = new Informer<T>({
      kubeConfig: start.kubeConfig,
      resource: { group, version, plural, ...(namespace ? { namespace } : {}) },
      ...(start.logger ? { logger: start.logger.child({ informer: `${plural}.${group || 'core'}` }) } : {}),
    });
    for (const [name, fn] of Object.entries(indexers)) informer.addIndex(name, fn);
    watched.push(`${plural}${group ? `.${group}` : ''}${namespace ? ` in ${namespace}` : ''}`);
    informers.push(informer as unknown as Informer<KubernetesObject>);
    return informer;
  };
  const admission: AdmissionCaches = {
    pvcs: make('', 'v1', 'persistentvolumeclaims'),
    storageClasses: make('storage.k8s.io', 'v1', 'storageclasses'),
    vms: make('kubevirt.io', 'v1', 'virtualmachines', undefined, { [VMS_BY_PVC_INDEX]: admissionIndexers.vms[VMS_BY_PVC_INDEX] }),
    kubeVirts: make('kubevirt.io', 'v1', 'kubevirts', options.kubeVirtNamespace),
    settings: make('harvesterhci.io', 'v1beta1', 'settings'),
  };
  if (start.longhorn ?? true) {
    admission.longhornVolumes = make('longhorn.io', 'v1beta2', 'volumes', options.longhornNamespace);
    admission.longhornEngines = make('longhorn.io', 'v1beta2', 'engines', options.longhornNamespace,
      { [ENGINES_BY_VOLUME_INDEX]: admissionIndexers.longhornEngines[ENGINES_BY_VOLUME_INDEX] });
    admission.longhornSettings = make('longhorn.io', 'v1beta2', 'settings', options.longhornNamespace);
  }
  const csiDrivers = make<CsiDriver & KubernetesObject>('storage.k8s.io', 'v1', 'csidrivers');
  for (const informer of informers) void informer.start().catch(() => undefined);
  // One line when every cache has listed once: what readiness waited for, and what is watched.
  void Promise.all(informers.map((informer) => informer.synced)).then(
    () => start.logger?.info({ watching: watched, objects: informers.reduce((n, informer) => n + informer.keys().length, 0) }, 'admission caches synced'),
    () => undefined,
  );
  return {
    caches: { admission, csiDrivers },
    ready: () => informers.every((informer) => informer.hasSynced),
    stop: async () => { await Promise.all(informers.map((informer) => informer.stop())); },
  };
}
