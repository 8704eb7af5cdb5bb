export type { AdmissionRequest, AdmissionVerdict, Validator, GroupVersionKind, GroupVersionResource } from './validator.js';
export { parseAdmissionReview, ADMISSION_API_VERSION, ADMISSION_REVIEW_KIND, type ParsedAdmissionReview } from './parse-admission-review.js';
export { toAdmissionReview, MAX_WARNING_LENGTH, type AdmissionReviewResponse } from './to-admission-review.js';
export { runValidator, type ValidatorOutcome } from './run-validator.js';
export { createWebhookServer, DEFAULT_BODY_LIMIT_BYTES, type WebhookServer, type WebhookServerOptions } from './create-webhook-server.js';
export { createCertificateReloader, loadCertificatePair, type CertificatePair, type CertificateReloader, type CertificateReloaderOptions } from './certificate-reloader.js';
export { createWebhookMetrics, type WebhookMetrics } from './webhook-metrics.js';
export { WEBHOOK_ENDPOINTS, ONLINE_EXPAND_SETTING_NAME, VOLUME_CLAIM_TEMPLATES_ANNOTATION, type WebhookEndpointKey } from './webhook-endpoints.js';
export {
  buildValidatingWebhookConfiguration, PVC_STORAGE_GROWS, VM_VOLUME_CLAIM_TEMPLATES_CHANGED, IS_ONLINE_EXPAND_SETTING,
  type WebhookConfigurationOptions,
} from './build-validating-webhook-configuration.js';
export { applyValidatingWebhookConfiguration, deleteValidatingWebhookConfiguration } from './webhook-registration.js';
export { serveWebhook, DEV_CONFIGURATION_NAME, type ServeWebhookOptions, type ServingWebhook, type StartedCaches } from './serve-webhook.js';
export { createPlaceholderValidators, startPlaceholderCaches } from './placeholder-validators.js';
export { WebhookError } from './webhook-error.js';
