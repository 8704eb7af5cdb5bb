import { CoreV1Api, CustomObjectsApi, StorageV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { AdmissionOptions } from './admission-options.js';
import type { AdmissionCaches } from './cache-snapshot-source.js';
import { LONGHORN_VOLUME_LABEL } from './cache-snapshot-source.js';
import { buildAdmissionCaches } from './build-admission-caches.js';
import { CheckError } from './check-error.js';
import type {
  LonghornEngine, LonghornVolume, PersistentVolumeClaim, StorageClass, VirtualMachine,
} from './kube-objects.js';
import { listItems, listOf, readOptional } from './read-optional.js';
import { readSharedObjects } from './read-shared-objects.js';

/**
 * For the one-shot `voe check`: reads what the admission path would find in its caches, with
 * get and list calls (only objects relevant to this PVC), into in-memory caches. Changes nothing.
 */
export async function loadCheckCaches(
  kubeConfig: KubeConfig,
  target: { namespace: string; name: string },
  options: AdmissionOptions,
): Promise<{ pvc: PersistentVolumeClaim; caches: AdmissionCaches }> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = kubeConfig.makeApiClient(StorageV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const { namespace, name } = target;

  const pvc = await readOptional(`PVC ${namespace}/${name}`,
    () => core.readNamespacedPersistentVolumeClaim({ namespace, name }) as Promise<PersistentVolumeClaim>);
  if (!pvc) throw new CheckError('CHECK_PVC_NOT_FOUND', `PVC ${namespace}/${name} not found; check the namespace and name.`);
  const className = pvc.spec?.storageClassName;
  const volumeName = pvc.spec?.volumeName;
  const lh = { group: 'longhorn.io', version: 'v1beta2', namespace: options.longhornNamespace };

  const [storageClass, vmList, shared, longhornVolume, engineList] = await Promise.all([
    className ? readOptional(`StorageClass ${className}`, () => storage.readStorageClass({ name: className }) as Promise<StorageClass>) : undefined,
    readOptional(`VirtualMachines in ${namespace}`, () => custom.listNamespacedCustomObject({ group: 'kubevirt.io', version: 'v1', namespace, plural: 'virtualmachines' })),
    readSharedObjects(custom, options),
    volumeName ? readOptional(`Longhorn Volume ${volumeName}`, () => custom.getNamespacedCustomObject({ ...lh, plural: 'volumes', name: volumeName }) as Promise<LonghornVolume>) : undefined,
    volumeName ? readOptional(`Longhorn Engines of ${volumeName}`, () => custom.listNamespacedCustomObject({ ...lh, plural: 'engines', labelSelector: `${LONGHORN_VOLUME_LABEL}=${volumeName}` })) : undefined,
  ]);

  return {
    pvc,
    caches: buildAdmissionCaches({
      ...shared,
      pvcs: [pvc],
      storageClasses: listOf(storageClass),
      vms: listItems<VirtualMachine>(vmList),
      longhornVolumes: listOf(longhornVolume),
      longhornEngines: listItems<LonghornEngine>(engineList),
    }),
  };
}
