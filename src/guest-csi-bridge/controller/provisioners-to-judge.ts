import type { HostPvc, HostStorageClass } from '../host/host-objects.js';

export const BETA_PROVISIONER_ANNOTATION = 'volume.beta.kubernetes.io/storage-provisioner';
export const PROVISIONER_ANNOTATION = 'volume.kubernetes.io/storage-provisioner';

/** The StorageClass the PVC names (spec, else the beta annotation); undefined for none. */
export function storageClassNameOf(pvc: HostPvc): string | undefined {
  return (
    pvc.spec?.storageClassName ||
    pvc.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] ||
    undefined
  );
}

/**
 * The provisioners the host's admission judges a growth of `pvc` against (as voe's webhook
 * does): the one its storage-provisioner annotation names (the beta key when present, as
 * Harvester reads it) and the one of its StorageClass, each once. Both count: an annotation can
 * be written by anyone who may update the PVC, the StorageClass cannot. Empty when neither is known.
 */
export function provisionersToJudge(
  pvc: HostPvc,
  storageClass: HostStorageClass | undefined,
): string[] {
  const annotations = pvc.metadata?.annotations ?? {};
  const annotated =
    BETA_PROVISIONER_ANNOTATION in annotations
      ? annotations[BETA_PROVISIONER_ANNOTATION]
      : annotations[PROVISIONER_ANNOTATION];
  const found = [annotated, storageClass?.provisioner].filter(
    (name): name is string => typeof name === 'string' && name !== '',
  );
  return [...new Set(found)];
}
