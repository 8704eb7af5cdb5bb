import type { HarvesterSetting } from '../settings/index.js';
import type { AdmissionOptions, ResizeSnapshotSource } from '../admission/index.js';
import type { Cache } from './cache.js';
import {
  LONGHORN_VOLUME_LABEL,
  type KubeVirt,
  type LonghornEngine,
  type LonghornSetting,
  type LonghornVolume,
  type PersistentVolumeClaim,
  type StorageClass,
  type VirtualMachine,
  type VirtualMachineInstance,
  pvcKeysOfVm,
  pvcKeysOfVmi,
} from '../model/index.js';

/** Index of the VM cache: "namespace/pvc" -> VMs using it (index function pvcKeysOfVm). */
export const VMS_BY_PVC_INDEX = 'vms-by-pvc';
/** Index of the VMI cache: "namespace/pvc" -> VMIs using it (index function pvcKeysOfVmi). */
export const VMIS_BY_PVC_INDEX = 'vmis-by-pvc';
/** Index of the Longhorn Engine cache: volume name (label longhornvolume) -> engines. */
export const ENGINES_BY_VOLUME_INDEX = 'engines-by-volume';
/** Index of the Longhorn Volume cache: the PV Longhorn recorded it bound to (status.kubernetesStatus.pvName) -> volumes. */
export const VOLUMES_BY_PV_INDEX = 'volumes-by-pv';

/** The index functions the caches must be built with. */
export const admissionIndexers = {
  vms: { [VMS_BY_PVC_INDEX]: (vm: VirtualMachine) => pvcKeysOfVm(vm) },
  vmis: { [VMIS_BY_PVC_INDEX]: (vmi: VirtualMachineInstance) => pvcKeysOfVmi(vmi) },
  longhornVolumes: {
    [VOLUMES_BY_PV_INDEX]: (volume: LonghornVolume) => {
      const pvName = volume.status?.kubernetesStatus?.pvName;
      return pvName ? [pvName] : [];
    },
  },
  longhornEngines: {
    [ENGINES_BY_VOLUME_INDEX]: (engine: LonghornEngine) => {
      const volume = engine.metadata?.labels?.[LONGHORN_VOLUME_LABEL];
      return volume ? [volume] : [];
    },
  },
};

/**
 * The caches the admission path reads. Longhorn caches are optional, present or absent together:
 * absent when Longhorn objects are not watched (`--longhorn off`), or not read (`--longhorn auto`
 * while the cluster does not serve Longhorn, or until the Longhorn caches voe started watching once
 * it did have all listed); they then read as empty and the decisions know they were not read.
 * Under `--longhorn auto` they come and go while voe serves: the source reads these properties at
 * each call, never keeps them.
 */
export interface AdmissionCaches {
  pvcs: Cache<PersistentVolumeClaim>;
  storageClasses: Cache<StorageClass>;
  /** Indexed by VMS_BY_PVC_INDEX. */
  vms: Cache<VirtualMachine>;
  /**
   * Indexed by VMIS_BY_PVC_INDEX: the running instances, which may have volumes their VM's spec
   * lacks (hotplugged without --persist, removed from the spec while the VM runs). `voe serve`
   * caches them lean (leanVmi).
   */
  vmis: Cache<VirtualMachineInstance>;
  kubeVirts: Cache<KubeVirt>;
  settings: Cache<HarvesterSetting>;
  /** Indexed by VOLUMES_BY_PV_INDEX. */
  longhornVolumes?: Cache<LonghornVolume>;
  /** Indexed by ENGINES_BY_VOLUME_INDEX. */
  longhornEngines?: Cache<LonghornEngine>;
  longhornSettings?: Cache<LonghornSetting>;
}

/** The resource each admission cache holds, as messages name it. */
const RESOURCE_OF: Record<keyof AdmissionCaches, string> = {
  pvcs: 'persistentvolumeclaims',
  storageClasses: 'storageclasses.storage.k8s.io',
  vms: 'virtualmachines.kubevirt.io',
  vmis: 'virtualmachineinstances.kubevirt.io',
  kubeVirts: 'kubevirts.kubevirt.io',
  settings: 'settings.harvesterhci.io',
  longhornVolumes: 'volumes.longhorn.io',
  longhornEngines: 'engines.longhorn.io',
  longhornSettings: 'settings.longhorn.io',
};

const LONGHORN_KEYS = ['longhornVolumes', 'longhornEngines', 'longhornSettings'] as const;

/** The production ResizeSnapshotSource: informer caches only, no API calls. */
export function createCacheSnapshotSource(
  caches: AdmissionCaches,
  options: AdmissionOptions,
): ResizeSnapshotSource {
  // The caches every decision reads; the Longhorn ones are looked up at each call (see AdmissionCaches).
  const fixed = (Object.keys(RESOURCE_OF) as Array<keyof AdmissionCaches>)
    .filter((key) => !(LONGHORN_KEYS as readonly string[]).includes(key))
    .map((key) => [key, caches[key] as Cache<unknown>] as const);
  const follows = (cache: Cache<unknown> | undefined): boolean =>
    cache === undefined || (cache.hasSynced && !cache.outOfSync);
  const outOfSync = (key: keyof AdmissionCaches, cache: Cache<unknown> | undefined): string[] => {
    const state = cache?.outOfSync;
    return state
      ? [`${RESOURCE_OF[key]} (since ${new Date(state.since).toISOString()}: ${state.why})`]
      : [];
  };
  return {
    synced: () =>
      fixed.every(([, cache]) => follows(cache)) &&
      follows(caches.longhornVolumes) &&
      follows(caches.longhornEngines) &&
      follows(caches.longhornSettings),
    outOfSync: () => [
      ...fixed.flatMap(([key, cache]) => outOfSync(key, cache)),
      ...LONGHORN_KEYS.flatMap((key) => outOfSync(key, caches[key])),
    ],
    getPvc: (namespace, name) => caches.pvcs.get(namespace, name),
    getStorageClass: (name) => caches.storageClasses.get(undefined, name),
    vmsUsingPvc: (namespace, name) => caches.vms.byIndex(VMS_BY_PVC_INDEX, `${namespace}/${name}`),
    vmisUsingPvc: (namespace, name) =>
      caches.vmis.byIndex(VMIS_BY_PVC_INDEX, `${namespace}/${name}`),
    getKubeVirt: () => caches.kubeVirts.get(options.kubeVirtNamespace, options.kubeVirtName),
    getSetting: (name) => caches.settings.get(undefined, name),
    getLonghornVolume: (name) => caches.longhornVolumes?.get(options.longhornNamespace, name),
    getLonghornVolumesOfPv: (pvName) =>
      (caches.longhornVolumes?.byIndex(VOLUMES_BY_PV_INDEX, pvName) ?? []).filter(
        (volume) => volume.metadata?.namespace === options.longhornNamespace,
      ),
    getLonghornEngines: (volume) =>
      (caches.longhornEngines?.byIndex(ENGINES_BY_VOLUME_INDEX, volume) ?? []).filter(
        (engine) => engine.metadata?.namespace === options.longhornNamespace,
      ),
    getLonghornSetting: (name) => caches.longhornSettings?.get(options.longhornNamespace, name),
    // Not watched, not read yet (`--longhorn auto` before its caches listed), or watched while the
    // cluster does not serve Longhorn Volumes (`--longhorn on` before Longhorn is installed).
    get readsLonghorn() {
      return caches.longhornSettings !== undefined && caches.longhornVolumes?.served !== false;
    },
  };
}
