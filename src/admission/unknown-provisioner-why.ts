import {
  BETA_PROVISIONER_ANNOTATION,
  PROVISIONER_ANNOTATION,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../model/index.js';

/** Why resolveProvisioner found nothing, and what to fix. */
export function unknownProvisionerWhy(
  pvc: PersistentVolumeClaim,
  storageClass: StorageClass | null | undefined,
): string {
  const annotations = pvc.metadata?.annotations ?? {};
  const key = Object.hasOwn(annotations, BETA_PROVISIONER_ANNOTATION)
    ? BETA_PROVISIONER_ANNOTATION
    : Object.hasOwn(annotations, PROVISIONER_ANNOTATION)
      ? PROVISIONER_ANNOTATION
      : undefined;
  const annotation =
    key === undefined ? 'no storage-provisioner annotation' : `an empty ${key} annotation`;
  const className = pvc.spec?.storageClassName;
  if (!className) return `${annotation} and no storageClassName. Set the PVC's StorageClass`;
  if (storageClass)
    return `${annotation} and StorageClass "${className}" names no provisioner. Fix the StorageClass`;
  return `${annotation} and StorageClass "${className}" was not found. Make sure the StorageClass exists`;
}
