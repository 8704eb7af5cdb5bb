import type { webcrypto } from 'node:crypto';
import type { X509Certificate } from './x509.js';

/** A certificate authority able to sign certificates: its certificate and private key. */
export interface CertificateAuthority {
  /** The CA certificate, PEM (what goes into a caBundle, a kubeconfig or --client-ca-file). */
  readonly certificatePem: string;
  /** The CA private key, PKCS#8 PEM. Secret: never log it. */
  readonly keyPem: string;
  readonly certificate: X509Certificate;
  readonly privateKey: webcrypto.CryptoKey;
}

/** A leaf certificate and its private key, PEM. */
export interface IssuedCertificate {
  readonly certificatePem: string;
  /** PKCS#8 PEM. Secret: never log it. */
  readonly keyPem: string;
  readonly certificate: X509Certificate;
}
