export {
  DEFAULT_ADMISSION_OPTIONS,
  LONGHORN_V2_EXPANSION_POLICIES,
  resolveAdmissionOptions,
  type AdmissionOptions,
  type LonghornV2Expansion,
} from './admission-options.js';
export {
  API_SERVER_REFUSALS,
  apiServerFindings,
  claimClassName,
  quotaFindings,
  type NamespacePolicies,
} from './api-server-checks.js';
export { assembleResizeSnapshot } from './assemble-resize-snapshot.js';
export type { CsiDriverSource } from './csi-driver-source.js';
export { decideResize } from './decide-resize.js';
export { Decision } from './decision.js';
export { PVC_EXPAND_PREFIX } from './resize-messages.js';
export type { ResizeSnapshotSource } from './resize-snapshot-source.js';
export type { ResizeDecision } from './resize-snapshot.js';
export { createExpandSettingValidator } from './validators/expand-setting-validator.js';
export { createPvcResizeValidator } from './validators/pvc-resize-validator.js';
export type {
  AdmissionRequest,
  AdmissionVerdict,
  GroupVersionKind,
  GroupVersionResource,
  Validator,
} from './validators/validator.js';
export { createVmClaimTemplatesValidator } from './validators/vm-claim-templates-validator.js';
