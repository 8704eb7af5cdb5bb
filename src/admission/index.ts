export {
  DEFAULT_ADMISSION_OPTIONS,
  LONGHORN_V2_EXPANSION_POLICIES,
  resolveAdmissionOptions,
  type AdmissionOptions,
  type LonghornV2Expansion,
} from './admission-options.js';
export type { NamespacePolicies } from './api-server-checks.js';
export { versionAtLeast } from './compare-version.js';
export { EXPAND_DISKS_GA_SINCE, expandDisksState } from './decide-resize.js';
export type {
  CsiDriver,
  KubeVirt,
  LonghornEngine,
  LonghornSetting,
  LonghornVolume,
  ObjectMeta,
  OwnerReference,
  PersistentVolumeClaim,
  StorageClass,
  VirtualMachine,
  VirtualMachineInstance,
  VmVolume,
  VmiVolumeStatus,
} from './kube-objects.js';
export { PVC_EXPAND_PREFIX } from './resize-messages.js';
export type { AdmissionRequest, AdmissionVerdict, Validator } from './validators/validator.js';
export { isVmRunning, pvcKeysOfVm } from './vm-claims.js';
export { isVmiRunning, pvcKeysOfVmi, vmNameOfVmi } from './vmi-claims.js';
