import type { HarvesterSetting } from '../../../src/settings/index.js';
import type { ClusterState } from '../../../src/demo/cluster-state.js';
import {
  resolveAdmissionOptions,
  type AdmissionOptions,
} from '../../../src/admission/admission-options.js';
import type {
  KubeVirt,
  LonghornEngine,
  LonghornSetting,
  LonghornVolume,
  PersistentVolumeClaim,
  StorageClass,
  VirtualMachine,
  VirtualMachineInstance,
} from '../../../src/model/index.js';
import type { ResizeSnapshotSource } from '../../../src/admission/resize-snapshot-source.js';
import {
  admissionIndexers,
  createCacheSnapshotSource,
  type AdmissionCaches,
} from '../../../src/host-cache/cache-snapshot-source.js';
import { MemoryCache } from '../../../src/host-cache/memory-cache.js';

export type { ClusterState };

export interface MemoryCaches {
  pvcs: MemoryCache<PersistentVolumeClaim>;
  storageClasses: MemoryCache<StorageClass>;
  vms: MemoryCache<VirtualMachine>;
  vmis: MemoryCache<VirtualMachineInstance>;
  kubeVirts: MemoryCache<KubeVirt>;
  settings: MemoryCache<HarvesterSetting>;
  longhornVolumes: MemoryCache<LonghornVolume>;
  longhornEngines: MemoryCache<LonghornEngine>;
  longhornSettings: MemoryCache<LonghornSetting>;
}

/** In-memory caches (with the admission indexes) holding the given objects. */
export function memoryCaches(state: ClusterState): MemoryCaches {
  return {
    pvcs: new MemoryCache(state.pvcs ?? []),
    storageClasses: new MemoryCache(state.storageClasses ?? []),
    vms: new MemoryCache(state.vms ?? [], { indexers: admissionIndexers.vms }),
    vmis: new MemoryCache(state.vmis ?? [], { indexers: admissionIndexers.vmis }),
    kubeVirts: new MemoryCache(state.kubeVirts ?? []),
    settings: new MemoryCache(state.settings ?? []),
    longhornVolumes: new MemoryCache(state.longhornVolumes ?? [], {
      indexers: admissionIndexers.longhornVolumes,
    }),
    longhornEngines: new MemoryCache(state.longhornEngines ?? [], {
      indexers: admissionIndexers.longhornEngines,
    }),
    longhornSettings: new MemoryCache(state.longhornSettings ?? []),
  };
}

export function memorySource(
  state: ClusterState,
  partial: Partial<AdmissionOptions> = {},
): {
  caches: MemoryCaches;
  source: ResizeSnapshotSource;
  options: AdmissionOptions;
} {
  const caches = memoryCaches(state);
  const options = resolveAdmissionOptions(partial);
  return { caches, source: createCacheSnapshotSource(caches as AdmissionCaches, options), options };
}
