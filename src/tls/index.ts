export type { CertificateAuthority, IssuedCertificate } from './certificate-authority.js';
export {
  createCertificateAuthority,
  type CertificateAuthorityOptions,
} from './create-certificate-authority.js';
export { loadCertificateAuthority } from './load-certificate-authority.js';
export {
  issueCertificate,
  type CertificateRequest,
  type CertificateUsage,
} from './issue-certificate.js';
export {
  issueServingCertificate,
  type ServingCertificateOptions,
} from './issue-serving-certificate.js';
export {
  issueClientCertificate,
  type ClientCertificateOptions,
} from './issue-client-certificate.js';
export { TlsError, TlsErrorCode } from './tls-error.js';
export { writePrivateFile } from './write-private-file.js';
export type {
  CertificateStore,
  StoredSecret,
  StoredWebhookConfiguration,
} from './certificate-store.js';
export {
  renewalDueWhy,
  parseCertificate,
  keyBelongsTo,
  isCa,
  signedBy,
  subjectAltNames,
} from './certificate-renewal.js';
export {
  ensureWebhookCertificates,
  serviceHosts,
  CA_SECRET_KEYS,
  TLS_SECRET_KEYS,
  type EnsureWebhookCertificatesOptions,
  type EnsureWebhookCertificatesReport,
  type CertificateAction,
} from './ensure-webhook-certificates.js';
export { kubeCertificateStore, CERTIFICATE_SECRET_LABELS } from './kube-certificate-store.js';
