import {
  resolveProvisioner,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../model/index.js';

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
