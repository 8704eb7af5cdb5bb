export type {
  AdmissionRequest,
  AdmissionVerdict,
  Validator,
  GroupVersionKind,
  GroupVersionResource,
} from './validator.js';
export {
  parseAdmissionReview,
  ADMISSION_API_VERSION,
  ADMISSION_REVIEW_KIND,
  type ParsedAdmissionReview,
} from './parse-admission-review.js';
export {
  toAdmissionReview,
  MAX_WARNING_LENGTH,
  type AdmissionReviewResponse,
} from './to-admission-review.js';
export { runValidator, type ValidatorOutcome } from './run-validator.js';
export {
  createWebhookServer,
  DEFAULT_BODY_LIMIT_BYTES,
  type WebhookServer,
  type WebhookServerOptions,
} from './create-webhook-server.js';
export {
  createCertificateReloader,
  type CertificateReloader,
  type CertificateReloaderOptions,
} from './certificate-reloader.js';
export { loadCertificatePair, type CertificatePair } from './load-certificate-pair.js';
export { createWebhookMetrics, type WebhookMetrics } from './webhook-metrics.js';
export {
  WEBHOOK_ENDPOINTS,
  VOLUME_CLAIM_TEMPLATES_ANNOTATION,
  type WebhookEndpointKey,
} from './webhook-endpoints.js';
export {
  buildValidatingWebhookConfiguration,
  PVC_STORAGE_REQUEST_GROWS,
  VM_VOLUME_CLAIM_TEMPLATES_CHANGED,
  IS_ONLINE_EXPAND_SETTING,
  settingNamed,
  type WebhookConfigurationOptions,
} from './build-validating-webhook-configuration.js';
export {
  applyValidatingWebhookConfiguration,
  deleteValidatingWebhookConfiguration,
  registerDevConfiguration,
} from './webhook-registration.js';
export {
  DEV_OWNER_ANNOTATION,
  devOwnerAnnotations,
  readDevOwner,
  ownerCaBundle,
  type DevOwner,
} from './dev-registration-owner.js';
export { decideDevRegistration } from './decide-dev-registration.js';
export { registrationChanges } from './registration-changes.js';
export { sumSamples } from './sum-samples.js';
export {
  serveWebhook,
  DEV_CONFIGURATION_NAME,
  type ServeWebhookOptions,
  type ServingWebhook,
} from './serve-webhook.js';
export type { StartedCaches } from './started-caches.js';
export { WebhookError, WebhookErrorCode } from './webhook-error.js';
export {
  type AdmissionOptions,
  type LonghornV2Expansion,
  DEFAULT_ADMISSION_OPTIONS,
  LONGHORN_V2_EXPANSION_POLICIES,
  resolveAdmissionOptions,
} from './admission-options.js';
export type * from './kube-objects.js';
export type { Cache, IndexFunction } from './cache.js';
export { MemoryCache } from './memory-cache.js';
export type {
  ResizeSnapshot,
  ResizeDecision,
  ResizeFinding,
  ResizeCheck,
  ExpandSettingState,
  LonghornSnapshot,
} from './resize-snapshot.js';
export type { ResizeSnapshotSource } from './resize-snapshot-source.js';
export {
  decideResize,
  storageGrows,
  resolveProvisioner,
  provisionersToJudge,
  expandDisksState,
  internalErrorDecision,
  EXPAND_DISKS_GA_SINCE,
} from './decide-resize.js';
export { LONGHORN_V2_EXPANSION_SINCE, longhornFacts } from './decide-longhorn.js';
export { assembleResizeSnapshot, readExpandSetting } from './assemble-resize-snapshot.js';
export {
  createCacheSnapshotSource,
  admissionIndexers,
  type AdmissionCaches,
  VMS_BY_PVC_INDEX,
  VMIS_BY_PVC_INDEX,
  ENGINES_BY_VOLUME_INDEX,
  VOLUMES_BY_PV_INDEX,
} from './cache-snapshot-source.js';
export { createPvcResizeValidator, PVC_RESIZE_PATH } from './pvc-resize-validator.js';
export {
  createVmClaimTemplatesValidator,
  VM_CLAIM_TEMPLATES_PATH,
} from './vm-claim-templates-validator.js';
export { createExpandSettingValidator, EXPAND_SETTING_PATH } from './expand-setting-validator.js';
export type { CsiDriverSource } from './csi-driver-source.js';
export { createCacheCsiDriverSource } from './cache-csi-driver-source.js';
export { createAdmissionValidators } from './create-admission-validators.js';
export { toVerdict } from './to-verdict.js';
export { storageRequest } from './storage-request.js';
export { goTrimSpace, readJsonQuantity, type JsonQuantity } from './read-json-quantity.js';
export { readCheckSize } from './read-check-size.js';
export { versionAtLeast, parseReleaseVersion } from './compare-version.js';
export {
  claimTemplatesOf,
  pvcKeysOfVm,
  volumeClaimTemplatesOf,
  isVmRunning,
  type ClaimTemplate,
} from './vm-claims.js';
export {
  claimNamesOfVmi,
  isVmiRunning,
  pvcKeysOfVmi,
  vmiHotplugs,
  vmNameOfVmi,
} from './vmi-claims.js';
export { leanVmi } from './lean-vmi.js';
export { withoutManagedFields } from './without-managed-fields.js';
export {
  DEV_CA_VALIDITY_DAYS,
  DEV_RENEW_EVERY_MS,
  DEV_RENEW_RETRY_MS,
  DEV_SERVING_VALIDITY_DAYS,
  startDevCertificateRenewal,
  type DevCertificateRenewal,
  type DevCertificateRenewalOptions,
} from './renew-dev-certificate.js';
export { vmUsers, type VmUsers } from './vm-users.js';
export { PVC_EXPAND_PREFIX } from './resize-messages.js';
export { CheckError, CheckErrorCode } from './check-error.js';
export { checkResize, type CheckResult } from './check-resize.js';
export {
  apiServerFindings,
  quotaFindings,
  claimClassName,
  BETA_STORAGE_CLASS_ANNOTATION,
  type NamespacePolicies,
} from './api-server-checks.js';
export { loadCheckCaches } from './load-check-caches.js';
export { readNamespacePolicies } from './read-namespace-policies.js';
export { loadClusterCaches } from './load-cluster-caches.js';
export {
  ADMISSION_CACHE_BACKOFF_MAX_MS,
  startAdmissionCaches,
  type StartedAdmissionCaches,
  type StartAdmissionCachesOptions,
} from './start-admission-caches.js';
export {
  createAdmissionInformer,
  logInSyncChange,
  type AdmissionInformer,
  type AdmissionInformerContext,
  type AdmissionInformerSpec,
} from './admission-informer.js';
export {
  followLonghorn,
  isLonghornServed,
  type FollowLonghornOptions,
  type LonghornCaches,
  type LonghornFollower,
} from './follow-longhorn.js';
export { admissionWiring } from './admission-wiring.js';
export { confirmApiServerCalls, type RegistrationCheck } from './confirm-api-server-calls.js';
