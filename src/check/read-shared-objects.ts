import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { HarvesterSetting } from '../settings/index.js';
import type { AdmissionOptions } from '../admission/index.js';
import type { KubeVirt, LonghornSetting } from '../model/index.js';
import { readOptional } from './read-optional.js';

/** The objects every resize decision reads, whichever PVC it is about. */
export interface SharedObjects {
  kubeVirt: KubeVirt | undefined;
  setting: HarvesterSetting | undefined;
  longhornSetting: LonghornSetting | undefined;
}

/**
 * Reads the KubeVirt CR, the csi-online-expand-validation Setting and Longhorn's version Setting
 * (each may be missing; Longhorn's not read with `longhorn: false`).
 */
export async function readSharedObjects(
  custom: CustomObjectsApi,
  options: AdmissionOptions,
  read: { longhorn?: boolean } = {},
): Promise<SharedObjects> {
  const [kubeVirt, setting, longhornSetting] = await Promise.all([
    readOptional(
      `KubeVirt ${options.kubeVirtNamespace}/${options.kubeVirtName}`,
      () =>
        custom.getNamespacedCustomObject({
          group: 'kubevirt.io',
          version: 'v1',
          namespace: options.kubeVirtNamespace,
          plural: 'kubevirts',
          name: options.kubeVirtName,
        }) as Promise<KubeVirt>,
    ),
    readOptional(
      `Setting ${options.settingName}`,
      () =>
        custom.getClusterCustomObject({
          group: 'harvesterhci.io',
          version: 'v1beta1',
          plural: 'settings',
          name: options.settingName,
        }) as Promise<HarvesterSetting>,
    ),
    read.longhorn === false
      ? undefined
      : readOptional(
          `Longhorn Setting ${options.longhornVersionSetting}`,
          () =>
            custom.getNamespacedCustomObject({
              group: 'longhorn.io',
              version: 'v1beta2',
              namespace: options.longhornNamespace,
              plural: 'settings',
              name: options.longhornVersionSetting,
            }) as Promise<LonghornSetting>,
        ),
  ]);
  return { kubeVirt, setting, longhornSetting };
}
