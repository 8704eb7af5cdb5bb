import type { HarvesterSetting } from '../settings/index.js';
import { admissionIndexers, type AdmissionCaches } from './cache-snapshot-source.js';
import {
  type KubeVirt,
  type LonghornEngine,
  type LonghornSetting,
  type LonghornVolume,
  type PersistentVolumeClaim,
  type StorageClass,
  type VirtualMachine,
  type VirtualMachineInstance,
  leanVm,
  leanVmi,
} from '../model/index.js';
import { MemoryCache } from './memory-cache.js';
import { listOf } from './list-items.js';
import { withoutManagedFields } from './without-managed-fields.js';

/** Objects read with get and list calls, each kind possibly absent (a missing object or CRD). */
export interface AdmissionObjects {
  pvcs: PersistentVolumeClaim[];
  storageClasses: StorageClass[];
  vms: VirtualMachine[];
  vmis: VirtualMachineInstance[];
  kubeVirt: KubeVirt | undefined;
  setting: HarvesterSetting | undefined;
  longhornVolumes: LonghornVolume[];
  longhornEngines: LonghornEngine[];
  longhornSetting: LonghornSetting | undefined;
}

/**
 * In-memory caches with the same indexes, lean VMs and VMIs and objects without managedFields the admission informers have, for `voe check` and the
 * demo survey. With `longhorn: false` (no Longhorn object was read) the Longhorn caches are left
 * out, as `voe serve --longhorn off` has none, so the decisions know the objects were not read.
 */
export function buildAdmissionCaches(
  objects: AdmissionObjects,
  read: { longhorn?: boolean } = {},
): AdmissionCaches {
  const lean = <T extends object>(list: T[]): T[] => list.map(withoutManagedFields);
  const caches: AdmissionCaches = {
    pvcs: new MemoryCache(lean(objects.pvcs)),
    storageClasses: new MemoryCache(lean(objects.storageClasses)),
    // Lean, as `voe serve` caches them.
    vms: new MemoryCache(objects.vms.map(leanVm), { indexers: admissionIndexers.vms }),
    vmis: new MemoryCache(objects.vmis.map(leanVmi), { indexers: admissionIndexers.vmis }),
    kubeVirts: new MemoryCache(lean(listOf(objects.kubeVirt))),
    settings: new MemoryCache(lean(listOf(objects.setting))),
  };
  if (read.longhorn === false) return caches;
  return {
    ...caches,
    longhornVolumes: new MemoryCache(lean(objects.longhornVolumes), {
      indexers: admissionIndexers.longhornVolumes,
    }),
    longhornEngines: new MemoryCache(lean(objects.longhornEngines), {
      indexers: admissionIndexers.longhornEngines,
    }),
    longhornSettings: new MemoryCache(lean(listOf(objects.longhornSetting))),
  };
}
