import type { PersistentVolumeClaim, StorageClass } from './kube-objects.js';

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

/**
 * Every provisioner a growth of this PVC is judged against: Harvester's (resolveProvisioner on the
 * PVC as it would be stored) first, then, when they differ, the one the stored PVC named and the
 * StorageClass's (and that of the class Kubernetes takes as the PVC's, `claimStorageClass`, when
 * the beta storage-class annotation names another one than spec.storageClassName). The
 * storage-provisioner annotations are writable by anyone who may update the PVC, while a bound
 * PVC's class is not (the API server refuses a growth whose class changed): naming a validated
 * driver in the annotation (in the resize itself, or in an update before it) must not get a volume
 * of another driver past the Setting or the Longhorn checks. Empty when Harvester's is unknown.
 */
export function provisionersToJudge(
  pvc: PersistentVolumeClaim,
  oldPvc: PersistentVolumeClaim | null | undefined,
  storageClass: StorageClass | null | undefined,
  claimStorageClass?: StorageClass | null,
): string[] {
  const primary = resolveProvisioner(pvc, storageClass);
  if (!primary) return [];
  const others = [
    oldPvc ? resolveProvisioner(oldPvc, storageClass) : undefined,
    storageClass?.provisioner,
    claimStorageClass?.provisioner,
  ];
  return [...new Set([primary, ...others.filter((name): name is string => Boolean(name))])];
}

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
