import { CoreV1Api, CustomObjectsApi, StorageV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { AdmissionOptions } from './admission-options.js';
import { admissionIndexers, type AdmissionCaches } from './cache-snapshot-source.js';
import type { LonghornEngine, LonghornVolume, PersistentVolumeClaim, StorageClass, VirtualMachine } from './kube-objects.js';
import { MemoryCache } from './memory-cache.js';
import { listItems, readOptional } from './read-optional.js';
import { readSharedObjects } from './read-shared-objects.js';

/**
 * For questions about many PVCs at once (the read-only survey of `voe demo`): lists, once each,
 * everything the admission path's informers would hold (PVCs, StorageClasses and VMs of all
 * namespaces, Longhorn Volumes and Engines) and reads the shared objects, into in-memory caches.
 * A resource whose CRD is missing reads as empty. Changes nothing.
 */
export async function loadClusterCaches(kubeConfig: KubeConfig, options: AdmissionOptions): Promise<AdmissionCaches> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = kubeConfig.makeApiClient(StorageV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const lh = { group: 'longhorn.io', version: 'v1beta2', namespace: options.longhornNamespace };
  const [pvcs, classes, vms, shared, volumes, engines] = await Promise.all([
    readOptional('PVCs', () => core.listPersistentVolumeClaimForAllNamespaces()),
    readOptional('StorageClasses', () => storage.listStorageClass()),
    readOptional('KubeVirt VirtualMachines', () => custom.listClusterCustomObject({ group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' })),
    readSharedObjects(custom, options),
    readOptional(`Longhorn Volumes in ${options.longhornNamespace}`, () => custom.listNamespacedCustomObject({ ...lh, plural: 'volumes' })),
    readOptional(`Longhorn Engines in ${options.longhornNamespace}`, () => custom.listNamespacedCustomObject({ ...lh, plural: 'engines' })),
  ]);
  const present = <T>(object: T | undefined): T[] => (object ? [object] : []);
  return {
    pvcs: new MemoryCache(listItems<PersistentVolumeClaim>(pvcs)),
    storageClasses: new MemoryCache(listItems<StorageClass>(classes)),
    vms: new MemoryCache(listItems<VirtualMachine>(vms), { indexers: admissionIndexers.vms }),
    kubeVirts: new MemoryCache(present(shared.kubeVirt)),
    settings: new MemoryCache(present(shared.setting)),
    longhornVolumes: new MemoryCache(listItems<LonghornVolume>(volumes)),
    longhornEngines: new MemoryCache(listItems<LonghornEngine>(engines), { indexers: admissionIndexers.longhornEngines }),
    longhornSettings: new MemoryCache(present(shared.longhornSetting)),
  };
}
