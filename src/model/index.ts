export { parseReleaseVersion, versionAtLeast, type ReleaseVersion } from './compare-version.js';
export {
  EXPAND_DISKS_GA_SINCE,
  EXPAND_DISKS_GATE,
  expandDisksState,
} from './expand-disks-state.js';
export type {
  ClaimEvent,
  CsiDriver,
  LiveMeta,
  Namespace,
  ObjectMeta,
  OwnerReference,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodVolume,
  PvcCondition,
  StorageClass,
} from './kubernetes-objects.js';
export {
  AGENT_CONNECTED,
  CREATED_BY_LABEL,
  HOTPLUG_POD,
  KUBEVIRT_POD_LABEL,
  LAUNCHER_POD,
  PAUSED,
} from './kubevirt-names.js';
export type {
  KubeVirt,
  MigrationState,
  PvcInfo,
  VirtualMachine,
  VirtualMachineInstance,
  VmiCondition,
  VmiDisk,
  VmiVolumeStatus,
  VmVolume,
} from './kubevirt-objects.js';
export {
  leanClaimEvent,
  leanLonghornVolume,
  leanNamespace,
  leanPod,
  leanPv,
  leanPvc,
  leanTrackedVmi,
  leanVm,
} from './lean-objects.js';
export { leanVmi } from './lean-vmi.js';
export {
  LONGHORN_VOLUME_LABEL,
  type LonghornEngine,
  type LonghornSetting,
  type LonghornVolume,
} from './longhorn-objects.js';
export { goTrimSpace, readJsonQuantity, type JsonQuantity } from './read-json-quantity.js';
export {
  BETA_PROVISIONER_ANNOTATION,
  PROVISIONER_ANNOTATION,
  resolveProvisioner,
} from './resolve-provisioner.js';
export { storageRequest, storageRequestOrNone } from './storage-request.js';
export {
  VOLUME_CLAIM_TEMPLATES_ANNOTATION,
  claimNameOf,
  claimTemplatesOf,
  isVmRunning,
  parseVolumeClaimTemplates,
  pvcKeysOfVm,
  volumeClaimTemplatesOf,
  vmHotplugs,
  vmUsesPvc,
  vmVolumesUsing,
  type ClaimTemplate,
} from './vm-claims.js';
export {
  claimNamesOfVmi,
  isVmiRunning,
  pvcKeysOfVmi,
  vmiHotplugs,
  vmNameOfVmi,
} from './vmi-claims.js';
export { GROW_GUEST_FILESYSTEM_ANNOTATION, GUEST_PROBE_ANNOTATION } from './voe-annotations.js';
