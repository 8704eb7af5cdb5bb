import { ApiException, CoreV1Api, CustomObjectsApi, StorageV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { HarvesterSetting } from '../settings/index.js';
import type { AdmissionOptions } from './admission-options.js';
import type { AdmissionCaches } from './cache-snapshot-source.js';
import { admissionIndexers, LONGHORN_VOLUME_LABEL } from './cache-snapshot-source.js';
import { CheckError } from './check-error.js';
import type {
  KubeVirt, LonghornEngine, LonghornSetting, LonghornVolume, PersistentVolumeClaim, StorageClass, VirtualMachine,
} from './kube-objects.js';
import { MemoryCache } from './memory-cache.js';

function isNotFound(error: unknown): boolean {
  return error instanceof ApiException && error.code === 404;
}

/** A read that may find nothing (object or CRD missing -> undefined); other failures throw CHECK_API_FAILED. */
async function optional<T>(what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    const status = error instanceof ApiException ? ` (HTTP ${error.code})` : '';
    throw new CheckError('CHECK_API_FAILED',
      `reading ${what} failed${status}: ${(error as Error).message.split('\n')[0]}. Check the kubeconfig and that your user may get/list it.`,
      { cause: error });
  }
}

function items<T>(list: unknown): T[] {
  return ((list as { items?: T[] } | undefined)?.items) ?? [];
}

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

  const pvc = await optional(`PVC ${namespace}/${name}`,
    () => core.readNamespacedPersistentVolumeClaim({ namespace, name }) as Promise<PersistentVolumeClaim>);
  if (!pvc) throw new CheckError('CHECK_PVC_NOT_FOUND', `PVC ${namespace}/${name} not found; check the namespace and name.`);
  const className = pvc.spec?.storageClassName;
  const volumeName = pvc.spec?.volumeName;
  const lh = { group: 'longhorn.io', version: 'v1beta2', namespace: options.longhornNamespace };

  const [storageClass, vmList, kubeVirt, setting, longhornVolume, engineList, longhornSetting] = await Promise.all([
    className ? optional(`StorageClass ${className}`, () => storage.readStorageClass({ name: className }) as Promise<StorageClass>) : undefined,
    optional(`VirtualMachines in ${namespace}`, () => custom.listNamespacedCustomObject({ group: 'kubevirt.io', version: 'v1', namespace, plural: 'virtualmachines' })),
    optional(`KubeVirt ${options.kubeVirtNamespace}/${options.kubeVirtName}`, () => custom.getNamespacedCustomObject({
      group: 'kubevirt.io', version: 'v1', namespace: options.kubeVirtNamespace, plural: 'kubevirts', name: options.kubeVirtName,
    }) as Promise<KubeVirt>),
    optional(`Setting ${options.settingName}`, () => custom.getClusterCustomObject({
      group: 'harvesterhci.io', version: 'v1beta1', plural: 'settings', name: options.settingName,
    }) as Promise<HarvesterSetting>),
    volumeName ? optional(`Longhorn Volume ${volumeName}`, () => custom.getNamespacedCustomObject({ ...lh, plural: 'volumes', name: volumeName }) as Promise<LonghornVolume>) : undefined,
    volumeName ? optional(`Longhorn Engines of ${volumeName}`, () => custom.listNamespacedCustomObject({ ...lh, plural: 'engines', labelSelector: `${LONGHORN_VOLUME_LABEL}=${volumeName}` })) : undefined,
    optional(`Longhorn Setting ${options.longhornVersionSetting}`, () => custom.getNamespacedCustomObject({
      ...lh, plural: 'settings', name: options.longhornVersionSetting,
    }) as Promise<LonghornSetting>),
  ]);

  const present = <T>(object: T | undefined): T[] => (object ? [object] : []);
  return {
    pvc,
    caches: {
      pvcs: new MemoryCache([pvc]),
      storageClasses: new MemoryCache(present(storageClass)),
      vms: new MemoryCache(items<VirtualMachine>(vmList), { indexers: admissionIndexers.vms }),
      kubeVirts: new MemoryCache(present(kubeVirt)),
      settings: new MemoryCache(present(setting)),
      longhornVolumes: new MemoryCache(present(longhornVolume)),
      longhornEngines: new MemoryCache(items<LonghornEngine>(engineList), { indexers: admissionIndexers.longhornEngines }),
      longhornSettings: new MemoryCache(present(longhornSetting)),
    },
  };
}
