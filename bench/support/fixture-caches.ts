/**
 * The real admission caches for the webhook benchmark, warm: MemoryCache is the same Cache
 * shape (get, list, byIndex, hasSynced) the informers give `voe serve`, with the same indexes
 * (VMs and VMIs by PVC, Engines by Longhorn volume), VMIs as lean as `voe serve` caches them and
 * the other objects without their managedFields, as its informers keep them. Longhorn PVCs get their Longhorn Volume (v1 data
 * engine) so the Longhorn branch reads a CR as it does on Harvester.
 */
import type { HarvesterSetting } from '../../src/settings/index.js';
import {
  admissionIndexers, leanVmi, MemoryCache, withoutManagedFields, type AdmissionCaches, type KubeVirt, type LonghornEngine,
  type LonghornSetting, type LonghornVolume, type PersistentVolumeClaim, type StorageClass, type VirtualMachine, type VirtualMachineInstance,
} from '../../src/webhook/index.js';
import type { Fixture } from './cluster-fixtures.js';

export function fixtureCaches(fixture: Fixture): AdmissionCaches {
  const pvcs = fixture.pvcs as PersistentVolumeClaim[];
  const longhornVolumes: LonghornVolume[] = pvcs
    .filter((pvc) => pvc.metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'] === 'driver.longhorn.io' && pvc.spec?.volumeName)
    .map((pvc) => ({
      apiVersion: 'longhorn.io/v1beta2', kind: 'Volume',
      metadata: { name: pvc.spec!.volumeName!, namespace: 'longhorn-system' },
      spec: { dataEngine: 'v1', frontend: 'blockdev', size: String(pvc.spec?.resources?.requests?.storage ?? '') },
    }) as LonghornVolume);
  return {
    pvcs: new MemoryCache(pvcs.map(withoutManagedFields)),
    storageClasses: new MemoryCache(fixture.storageClasses as StorageClass[]),
    vms: new MemoryCache((fixture.vms as VirtualMachine[]).map(withoutManagedFields), { indexers: admissionIndexers.vms }),
    vmis: new MemoryCache((fixture.vmis as VirtualMachineInstance[]).map(leanVmi), { indexers: admissionIndexers.vmis }),
    kubeVirts: new MemoryCache([fixture.kubevirt as KubeVirt]),
    settings: new MemoryCache([fixture.setting as HarvesterSetting]),
    longhornVolumes: new MemoryCache(longhornVolumes),
    longhornEngines: new MemoryCache<LonghornEngine>([], { indexers: admissionIndexers.longhornEngines }),
    longhornSettings: new MemoryCache([{ metadata: { name: 'current-longhorn-version', namespace: 'longhorn-system' }, value: 'v1.10.1' } as LonghornSetting]),
  };
}
