/** A Secret's data as text (decoded from base64), with the resourceVersion it was read at. */
export interface StoredSecret {
  data: Record<string, string>;
  resourceVersion: string;
}

/** The caBundle of each webhook of a ValidatingWebhookConfiguration (base64 text, '' when unset). */
export interface StoredWebhookConfiguration {
  caBundles: Array<{ webhook: string; caBundle: string }>;
  resourceVersion: string;
}

/**
 * Where ensureWebhookCertificates keeps the certificates and whom it tells about the CA: Secrets in
 * one namespace and ValidatingWebhookConfigurations (kubeCertificateStore is the Kubernetes one).
 * Writes carry the resourceVersion they were read at: a concurrent writer makes them fail
 * (TLS_CERTIFICATES_CONFLICT) rather than one overwrite the other.
 */
export interface CertificateStore {
  readSecret(name: string): Promise<StoredSecret | undefined>;
  /** Creates the Secret when `previous` is undefined, else replaces the one read at `previous.resourceVersion`. */
  writeSecret(
    name: string,
    secret: { type: string; data: Record<string, string> },
    previous: StoredSecret | undefined,
  ): Promise<void>;
  readWebhookConfiguration(name: string): Promise<StoredWebhookConfiguration | undefined>;
  /** Sets every webhook's clientConfig.caBundle (base64) of the configuration read as `previous`. */
  writeCaBundle(
    name: string,
    caBundle: string,
    previous: StoredWebhookConfiguration,
  ): Promise<void>;
}
