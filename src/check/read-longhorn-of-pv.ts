import type { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { AdmissionOptions } from '../admission/index.js';
import { LONGHORN_VOLUME_LABEL, type LonghornEngine, type LonghornVolume } from '../model/index.js';
import { readOptional, readOptionalList } from './read-optional.js';
import { listItems } from '../host-cache/index.js';

/**
 * For `voe check`: the Longhorn Volumes and Engines the admission caches would need to judge a PV;
 * which Volume is the PV's is decided by assembleResizeSnapshot over them, as for the webhook. The
 * Volume named after the PV and its Engines; when there is none (a statically provisioned PV names
 * another volume in its volumeHandle), every Volume and Engine of the Longhorn namespace. `served`
 * is false when the cluster does not serve Longhorn Volumes at all (discovery confirms it).
 */
export async function readLonghornOfPv(
  custom: CustomObjectsApi,
  kubeConfig: KubeConfig,
  options: Pick<AdmissionOptions, 'longhornNamespace'>,
  pvName: string,
): Promise<{ volumes: LonghornVolume[]; engines: LonghornEngine[]; served: boolean }> {
  const lh = { group: 'longhorn.io', version: 'v1beta2', namespace: options.longhornNamespace };
  const listEngines = async (labelSelector?: string): Promise<LonghornEngine[]> =>
    listItems<LonghornEngine>(
      await readOptionalList(
        labelSelector ? `Longhorn Engines of ${pvName}` : `Longhorn Engines in ${lh.namespace}`,
        kubeConfig,
        { ...lh, plural: 'engines' },
        () =>
          custom.listNamespacedCustomObject({
            ...lh,
            plural: 'engines',
            ...(labelSelector ? { labelSelector } : {}),
          }),
      ),
    );
  const named = await readOptional(
    `Longhorn Volume ${pvName}`,
    () =>
      custom.getNamespacedCustomObject({
        ...lh,
        plural: 'volumes',
        name: pvName,
      }) as Promise<LonghornVolume>,
  );
  if (named)
    return {
      volumes: [named],
      engines: await listEngines(`${LONGHORN_VOLUME_LABEL}=${pvName}`),
      served: true,
    };
  const [all, engines] = await Promise.all([
    readOptionalList(
      `Longhorn Volumes in ${lh.namespace}`,
      kubeConfig,
      { ...lh, plural: 'volumes' },
      () => custom.listNamespacedCustomObject({ ...lh, plural: 'volumes' }),
    ),
    listEngines(),
  ]);
  if (all === undefined) return { volumes: [], engines: [], served: false };
  return { volumes: listItems<LonghornVolume>(all), engines, served: true };
}
