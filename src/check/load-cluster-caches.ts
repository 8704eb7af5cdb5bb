import {
  CoreV1Api,
  CustomObjectsApi,
  StorageV1Api,
  type KubeConfig,
} from '@kubernetes/client-node';
import type { AdmissionOptions } from '../admission/index.js';
import { buildAdmissionCaches, type AdmissionCaches, listItems } from '../host-cache/index.js';
import type {
  LonghornEngine,
  LonghornVolume,
  PersistentVolumeClaim,
  StorageClass,
  VirtualMachine,
  VirtualMachineInstance,
} from '../model/index.js';
import { readOptional, readOptionalList } from './read-optional.js';
import { readSharedObjects } from './read-shared-objects.js';

/**
 * For questions about many PVCs at once (the read-only survey of `voe demo`): lists, once each,
 * everything the admission path's informers would hold (PVCs, StorageClasses, VMs and VMIs of all
 * namespaces, Longhorn Volumes and Engines) and reads the shared objects, into in-memory caches.
 * A resource whose CRD is missing reads as empty. Changes nothing.
 */
export async function loadClusterCaches(
  kubeConfig: KubeConfig,
  options: AdmissionOptions,
): Promise<AdmissionCaches> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = kubeConfig.makeApiClient(StorageV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const lh = { group: 'longhorn.io', version: 'v1beta2', namespace: options.longhornNamespace };
  const [pvcs, classes, vms, vmis, shared, volumes, engines] = await Promise.all([
    readOptional('PVCs', () => core.listPersistentVolumeClaimForAllNamespaces()),
    readOptional('StorageClasses', () => storage.listStorageClass()),
    readOptionalList(
      'KubeVirt VirtualMachines',
      kubeConfig,
      { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' },
      () =>
        custom.listClusterCustomObject({
          group: 'kubevirt.io',
          version: 'v1',
          plural: 'virtualmachines',
        }),
    ),
    readOptionalList(
      'KubeVirt VirtualMachineInstances',
      kubeConfig,
      { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' },
      () =>
        custom.listClusterCustomObject({
          group: 'kubevirt.io',
          version: 'v1',
          plural: 'virtualmachineinstances',
        }),
    ),
    readSharedObjects(custom, options),
    readOptionalList(
      `Longhorn Volumes in ${options.longhornNamespace}`,
      kubeConfig,
      { ...lh, plural: 'volumes' },
      () => custom.listNamespacedCustomObject({ ...lh, plural: 'volumes' }),
    ),
    readOptionalList(
      `Longhorn Engines in ${options.longhornNamespace}`,
      kubeConfig,
      { ...lh, plural: 'engines' },
      () => custom.listNamespacedCustomObject({ ...lh, plural: 'engines' }),
    ),
  ]);
  return buildAdmissionCaches(
    {
      ...shared,
      pvcs: listItems<PersistentVolumeClaim>(pvcs),
      storageClasses: listItems<StorageClass>(classes),
      vms: listItems<VirtualMachine>(vms),
      vmis: listItems<VirtualMachineInstance>(vmis),
      longhornVolumes: listItems<LonghornVolume>(volumes),
      longhornEngines: listItems<LonghornEngine>(engines),
      // As `voe serve --longhorn auto`: a cluster that does not serve Longhorn Volumes has its Longhorn objects not read.
    },
    { longhorn: volumes !== undefined },
  );
}
