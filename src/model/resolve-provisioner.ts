import type { PersistentVolumeClaim, StorageClass } from './kubernetes-objects.js';

export const BETA_PROVISIONER_ANNOTATION = 'volume.beta.kubernetes.io/storage-provisioner';
export const PROVISIONER_ANNOTATION = 'volume.kubernetes.io/storage-provisioner';

/**
 * Harvester's provisioner (GetProvisionedPVCProvisioner): the beta annotation when the key is
 * present, else the GA annotation; when that gives nothing or an empty value, the StorageClass
 * provisioner (the PV's driver is not consulted).
 */
export function resolveProvisioner(
  pvc: PersistentVolumeClaim,
  storageClass: StorageClass | null | undefined,
): string | undefined {
  const annotations = pvc.metadata?.annotations ?? {};
  const annotated = Object.hasOwn(annotations, BETA_PROVISIONER_ANNOTATION)
    ? annotations[BETA_PROVISIONER_ANNOTATION]
    : annotations[PROVISIONER_ANNOTATION];
  return annotated || storageClass?.provisioner;
}
