import type { KubernetesObject } from '@kubernetes/client-node';
import {
  createAdmissionInformer,
  logInSyncChange,
  type AdmissionInformer,
  type AdmissionInformerContext,
  type AdmissionInformerSpec,
} from './admission-informer.js';

/**
 * What the decisions make of an empty cache, for the warning when the cluster does not serve a
 * custom resource (docs/admission.md): the informer then holds nothing until its CRD appears.
 */
const WHEN_NOT_SERVED: Record<string, string> = {
  'virtualmachines.kubevirt.io':
    'no VirtualMachine uses any PVC, so growing PVCs are allowed as offline expansions',
  'virtualmachineinstances.kubevirt.io':
    'no VirtualMachineInstance runs, so only VirtualMachines say which PVCs running VMs use',
  'kubevirts.kubevirt.io':
    'the KubeVirt CR is missing: a growing PVC of a running VM is refused with 500 (kubevirt-missing)',
  'settings.harvesterhci.io':
    'the Setting is missing: Harvester\'s default {"driver.longhorn.io":true} applies, with an admission warning',
  'volumes.longhorn.io': 'Longhorn volumes are judged by their StorageClass parameters',
  'engines.longhorn.io': 'Longhorn volumes are judged by their StorageClass parameters',
  'settings.longhorn.io':
    'the Longhorn version is unknown: v2 volumes are refused under longhornV2Expansion auto',
};

/**
 * One informer (not started) of a resource startAdmissionCaches watches for its whole run: a
 * custom resource the cluster may not serve is watched as empty meanwhile, with a warning saying
 * what that means for the decisions (an info line once it is served); changes of its sync are
 * logged (logInSyncChange).
 */
export function watchAdmissionResource<T extends KubernetesObject>(
  context: AdmissionInformerContext,
  spec: Omit<AdmissionInformerSpec<T>, 'notServedAsEmpty'>,
): AdmissionInformer<T> {
  const { group, version, plural } = spec;
  const when = WHEN_NOT_SERVED[`${plural}${group ? `.${group}` : ''}`];
  const cache = createAdmissionInformer<T>(context, {
    group,
    version,
    plural,
    indexers: spec.indexers ?? {},
    ...(spec.namespace ? { namespace: spec.namespace } : {}),
    ...(spec.name === undefined ? {} : { name: spec.name }),
    // Custom resources may be missing from a cluster (no KubeVirt, Harvester or Longhorn CRDs).
    ...(when === undefined ? {} : { notServedAsEmpty: true }),
    ...(spec.transform === undefined ? {} : { transform: spec.transform }),
  });
  const { informer, resource } = cache;
  const logger = context.logger;
  informer.on('inSync', (inSync) =>
    logInSyncChange(logger, cache as unknown as AdmissionInformer, inSync),
  );
  if (when !== undefined) {
    let wasServed: boolean | undefined;
    informer.on('served', (served) => {
      if (!served) {
        logger?.warn(
          { resource, apiVersion: `${group}/${version}`, means: when },
          `the cluster does not serve ${resource} (no CRD): watched as empty until it does (listed again every 5 s)`,
        );
      } else if (wasServed === false) {
        logger?.info({ resource }, `the cluster now serves ${resource}: its cache fills`);
      }
      wasServed = served;
    });
  }
  return cache;
}
