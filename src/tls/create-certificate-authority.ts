import {
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectKeyIdentifierExtension,
  X509CertificateGenerator,
} from './x509.js';
import type { CertificateAuthority } from './certificate-authority.js';
import {
  ECDSA_SHA256,
  exportPrivateKeyPem,
  generateKeyPair,
  nodeCrypto,
  randomSerialNumber,
} from './webcrypto-provider.js';
import { TlsError } from './tls-error.js';
import { validityWindow } from './validity-window.js';

export interface CertificateAuthorityOptions {
  /** Days the CA stays valid; default 3650. */
  validityDays?: number;
  /** Start of validity; default five minutes ago (tolerates small clock skew). */
  notBefore?: Date;
}

/** A new self-signed ECDSA P-256 certificate authority with subject CN=<name>. */
export async function createCertificateAuthority(
  name: string,
  options: CertificateAuthorityOptions = {},
): Promise<CertificateAuthority> {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new TlsError(
      'TLS_INVALID_OPTIONS',
      'createCertificateAuthority needs a non-empty name (it becomes the CA subject CN).',
    );
  }
  const keys = await generateKeyPair();
  const { notBefore, notAfter } = validityWindow(options.validityDays ?? 3650, options.notBefore);
  const certificate = await X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerialNumber(),
      name: [{ CN: [name] }],
      notBefore,
      notAfter,
      signingAlgorithm: ECDSA_SHA256,
      keys,
      extensions: [
        new BasicConstraintsExtension(true, undefined, true),
        new KeyUsagesExtension(
          KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign | KeyUsageFlags.digitalSignature,
          true,
        ),
        await SubjectKeyIdentifierExtension.create(keys.publicKey, false, nodeCrypto),
      ],
    },
    nodeCrypto,
  );
  return {
    certificatePem: certificate.toString('pem'),
    keyPem: await exportPrivateKeyPem(keys.privateKey),
    certificate,
    privateKey: keys.privateKey,
  };
}
