import { createPrivateKey, createPublicKey, type webcrypto } from 'node:crypto';
import { X509Certificate, PemConverter, BasicConstraintsExtension } from './x509.js';
import type { CertificateAuthority } from './certificate-authority.js';
import { ECDSA_P256, nodeCrypto } from './webcrypto-provider.js';
import { TlsError } from './tls-error.js';

/** Loads a CA written by createCertificateAuthority (PEM certificate + PKCS#8 ECDSA P-256 key). */
export async function loadCertificateAuthority(pem: {
  certificatePem: string;
  keyPem: string;
}): Promise<CertificateAuthority> {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem.certificatePem);
  } catch (error) {
    throw new TlsError('TLS_INVALID_PEM', 'The CA certificate is not a PEM X.509 certificate.', {
      cause: error,
    });
  }
  const constraints = certificate.getExtension(BasicConstraintsExtension);
  if (!constraints?.ca) {
    throw new TlsError(
      'TLS_INVALID_PEM',
      `The certificate ${certificate.subject} is not a CA (basicConstraints CA:TRUE is missing).`,
    );
  }
  let privateKey: webcrypto.CryptoKey;
  try {
    const der = PemConverter.decodeFirst(pem.keyPem);
    privateKey = await nodeCrypto.subtle.importKey('pkcs8', der, ECDSA_P256, true, ['sign']);
  } catch (error) {
    throw new TlsError(
      'TLS_UNSUPPORTED_KEY',
      'The CA key must be a PKCS#8 PEM ECDSA P-256 private key ("-----BEGIN PRIVATE KEY-----").',
      { cause: error },
    );
  }
  const keySpki = createPublicKey(createPrivateKey(pem.keyPem)).export({
    type: 'spki',
    format: 'der',
  });
  if (!keySpki.equals(Buffer.from(certificate.publicKey.rawData))) {
    throw new TlsError(
      'TLS_INVALID_PEM',
      `The CA key does not belong to the CA certificate ${certificate.subject}.`,
    );
  }
  return {
    certificatePem: certificate.toString('pem'),
    keyPem: pem.keyPem,
    certificate,
    privateKey,
  };
}
