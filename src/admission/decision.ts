/**
 * The stable decision labels of admission (docs/admission.md, docs/troubleshooting.md): each
 * verdict and finding carries one, in answers' logs, in metrics (`decision`) and in `voe check`.
 * A label never changes once published.
 */
export const Decision = {
  // The update is not what a validator judges.
  NotResize: 'not-resize',
  NotTemplateChange: 'not-template-change',
  NotExpandSetting: 'not-expand-setting',
  // Admitted.
  Allowed: 'allowed',
  AllowedOffline: 'allowed-offline',
  Recovery: 'recovery',
  SettingValid: 'setting-valid',
  // Findings that admit (a rule that holds).
  Online: 'online',
  // Refused by the design's rules.
  KubevirtMissing: 'kubevirt-missing',
  GateMissing: 'gate-missing',
  HotplugFilesystem: 'hotplug-filesystem',
  ProvisionerUnknown: 'provisioner-unknown',
  ProvisionerNotValidated: 'provisioner-not-validated',
  LonghornV2: 'longhorn-v2',
  LonghornV2Version: 'longhorn-v2-version',
  LonghornV2Encrypted: 'longhorn-v2-encrypted',
  LonghornV2Ublk: 'longhorn-v2-ublk',
  LonghornVolumeUnknown: 'longhorn-volume-unknown',
  // Refused as the API server would refuse it.
  ApiNotBound: 'api-not-bound',
  ApiExpansionNotAllowed: 'api-expansion-not-allowed',
  ApiBelowPrevious: 'api-below-previous',
  ApiBelowCapacity: 'api-below-capacity',
  ApiInvalidSize: 'api-invalid-size',
  ApiLimitRange: 'api-limit-range',
  ApiQuotaExceeded: 'api-quota-exceeded',
  ApiPolicyUnreadable: 'api-policy-unreadable',
  // Invalid input.
  SizeOutOfRange: 'size-out-of-range',
  QuantityInvalid: 'quantity-invalid',
  TemplateInvalid: 'template-invalid',
  TemplateShrink: 'template-shrink',
  TemplateStorageClassChange: 'template-storage-class-change',
  SettingInvalid: 'setting-invalid',
  SettingLonghornDisabled: 'setting-longhorn-disabled',
  // The webhook cannot judge.
  CacheNotSynced: 'cache-not-synced',
  CacheOutOfSync: 'cache-out-of-sync',
  InternalError: 'internal-error',
} as const;

export type DecisionValue = (typeof Decision)[keyof typeof Decision];
