export type { CertificateAuthority } from './certificate-authority.js';
export { createCertificateAuthority } from './create-certificate-authority.js';
export {
  ensureWebhookCertificates,
  type EnsureWebhookCertificatesReport,
} from './ensure-webhook-certificates.js';
export { issueClientCertificate } from './issue-client-certificate.js';
export { issueServingCertificate } from './issue-serving-certificate.js';
export { kubeCertificateStore } from './kube-certificate-store.js';
export { TlsError } from './tls-error.js';
export { writePrivateFile } from './write-private-file.js';
