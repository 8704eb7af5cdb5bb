import {
  CoreV1Api,
  CustomObjectsApi,
  StorageV1Api,
  type KubeConfig,
} from '@kubernetes/client-node';
import {
  type AdmissionOptions,
  claimClassName,
  type NamespacePolicies,
} from '../admission/index.js';
import {
  type AdmissionCaches,
  buildAdmissionCaches,
  listItems,
  listOf,
} from '../host-cache/index.js';
import { CheckError } from './check-error.js';
import type {
  PersistentVolumeClaim,
  StorageClass,
  VirtualMachine,
  VirtualMachineInstance,
} from '../model/index.js';
import { readLonghornOfPv } from './read-longhorn-of-pv.js';
import { readNamespacePolicies } from './read-namespace-policies.js';
import { readOptional, readOptionalList } from './read-optional.js';
import { readSharedObjects } from './read-shared-objects.js';

const VMS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };
const VMIS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };

/**
 * For the one-shot `voe check`: reads what the admission path would find in its caches, with
 * get and list calls (only objects relevant to this PVC: the VMs and VMIs of its namespace), into in-memory caches, and the
 * namespace's LimitRanges and ResourceQuotas the API server applies too. Changes nothing. With
 * `longhorn: false` (as `voe serve --longhorn off`) no Longhorn object is read: Longhorn volumes are
 * then judged by their StorageClass parameters, as that webhook judges them.
 */
export async function loadCheckCaches(
  kubeConfig: KubeConfig,
  target: { namespace: string; name: string },
  options: AdmissionOptions,
  read: { longhorn?: 'auto' | 'on' | 'off' } = {},
): Promise<{ pvc: PersistentVolumeClaim; caches: AdmissionCaches; policies: NamespacePolicies }> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = kubeConfig.makeApiClient(StorageV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const { namespace, name } = target;

  const pvc = await readOptional(
    `PVC ${namespace}/${name}`,
    () =>
      core.readNamespacedPersistentVolumeClaim({
        namespace,
        name,
      }) as Promise<PersistentVolumeClaim>,
  );
  if (!pvc)
    throw new CheckError(
      'CHECK_PVC_NOT_FOUND',
      `PVC ${namespace}/${name} not found; check the namespace and name.`,
    );
  // The webhook's class (spec) and the one the API server's admission reads (the beta annotation first).
  const classNames = [
    ...new Set([pvc.spec?.storageClassName, claimClassName(pvc)].filter((c): c is string => !!c)),
  ];
  const volumeName = pvc.spec?.volumeName;
  const longhorn = read.longhorn !== 'off';

  const [storageClasses, vmList, vmiList, shared, longhornOfPv, policies] = await Promise.all([
    Promise.all(
      classNames.map((c) =>
        readOptional(
          `StorageClass ${c}`,
          () => storage.readStorageClass({ name: c }) as Promise<StorageClass>,
        ),
      ),
    ),
    readOptionalList(`VirtualMachines in ${namespace}`, kubeConfig, VMS, () =>
      custom.listNamespacedCustomObject({ ...VMS, namespace }),
    ),
    // The running instances: a volume hotplugged without --persist is in the VMI's spec only.
    readOptionalList(`VirtualMachineInstances in ${namespace}`, kubeConfig, VMIS, () =>
      custom.listNamespacedCustomObject({ ...VMIS, namespace }),
    ),
    readSharedObjects(custom, options, { longhorn }),
    longhorn && volumeName ? readLonghornOfPv(custom, kubeConfig, options, volumeName) : undefined,
    // The namespace's LimitRanges and ResourceQuotas (not judged when the user may not list them) and the server's version.
    readNamespacePolicies(kubeConfig, [namespace]).then((byNamespace) =>
      byNamespace.get(namespace)!,
    ),
  ]);

  return {
    pvc,
    caches: buildAdmissionCaches(
      {
        ...shared,
        pvcs: [pvc],
        storageClasses: storageClasses.flatMap((c) => listOf(c)),
        vms: listItems<VirtualMachine>(vmList),
        vmis: listItems<VirtualMachineInstance>(vmiList),
        longhornVolumes: longhornOfPv?.volumes ?? [],
        longhornEngines: longhornOfPv?.engines ?? [],
        // As `voe serve`: a cluster that does not serve Longhorn Volumes has its Longhorn objects not read.
      },
      { longhorn: longhorn && longhornOfPv?.served !== false },
    ),
    policies,
  };
}
