import type { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { AdmissionOptions } from './admission-options.js';
import { LONGHORN_VOLUME_LABEL } from './cache-snapshot-source.js';
import type { LonghornEngine, LonghornVolume } from './kube-objects.js';
import { listItems, readOptional, readOptionalList } from './read-optional.js';

/**
 * For `voe check`: the Longhorn Volume(s) and Engines the admission caches would hold for a PV.
 * The Volume named after the PV; when there is none (a statically provisioned PV names another
 * volume in its volumeHandle), every Volume Longhorn records as bound to the PV
 * (status.kubernetesStatus.pvName). Then the Engines labelled with the volume's name. `served`
 * is false when the cluster does not serve Longhorn Volumes at all (discovery confirms it).
 */
export async function readLonghornOfPv(
  custom: CustomObjectsApi, kubeConfig: KubeConfig, options: Pick<AdmissionOptions, 'longhornNamespace'>, pvName: string,
): Promise<{ volumes: LonghornVolume[]; engines: LonghornEngine[]; served: boolean }> {
  const lh = { group: 'longhorn.io', version: 'v1beta2', namespace: options.longhornNamespace };
  const named = await readOptional(`Longhorn Volume ${pvName}`,
    () => custom.getNamespacedCustomObject({ ...lh, plural: 'volumes', name: pvName }) as Promise<LonghornVolume>);
  let volumes: LonghornVolume[];
  if (named) {
    volumes = [named];
  } else {
    const all = await readOptionalList(`Longhorn Volumes in ${lh.namespace}`, kubeConfig,
      { ...lh, plural: 'volumes' }, () => custom.listNamespacedCustomObject({ ...lh, plural: 'volumes' }));
    if (all === undefined) return { volumes: [], engines: [], served: false };
    volumes = listItems<LonghornVolume>(all).filter((volume) => volume.status?.kubernetesStatus?.pvName === pvName);
  }
  const volumeName = volumes.length === 1 ? (volumes[0]?.metadata?.name ?? pvName) : pvName;
  const engines = listItems<LonghornEngine>(await readOptionalList(`Longhorn Engines of ${volumeName}`, kubeConfig, { ...lh, plural: 'engines' },
    () => custom.listNamespacedCustomObject({ ...lh, plural: 'engines', labelSelector: `${LONGHORN_VOLUME_LABEL}=${volumeName}` })));
  return { volumes, engines, served: true };
}
