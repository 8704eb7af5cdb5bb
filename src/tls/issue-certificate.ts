import { isIP } from 'node:net';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509CertificateGenerator,
  type Extension,
  type JsonGeneralName,
  type JsonName,
} from './x509.js';
import type { CertificateAuthority, IssuedCertificate } from './certificate-authority.js';
import {
  ECDSA_SHA256,
  exportPrivateKeyPem,
  generateKeyPair,
  nodeCrypto,
  randomSerialNumber,
} from './webcrypto-provider.js';
import { TlsError } from './tls-error.js';
import { validityWindow } from './validity-window.js';

export type CertificateUsage = 'server' | 'client';

export interface CertificateRequest {
  /** Subject CN (for a Kubernetes client certificate: the user name). */
  commonName: string;
  /** Subject O, one RDN per entry (for a Kubernetes client certificate: the groups). */
  organizations?: string[];
  /** Subject alternative names: IP addresses become iPAddress entries, anything else dNSName. */
  hosts?: string[];
  /** Extended key usages; at least one. */
  usages: CertificateUsage[];
  /** Days the certificate stays valid; default 365, never beyond the CA's notAfter. */
  validityDays?: number;
  notBefore?: Date;
}

/** Signs a new ECDSA P-256 leaf certificate (CA:FALSE, digitalSignature, the requested EKUs and SANs) with `ca`. */
export async function issueCertificate(
  ca: CertificateAuthority,
  request: CertificateRequest,
): Promise<IssuedCertificate> {
  if (typeof request.commonName !== 'string' || request.commonName === '') {
    throw new TlsError('TLS_INVALID_OPTIONS', 'A certificate needs a non-empty common name.');
  }
  if (request.usages.length === 0) {
    throw new TlsError(
      'TLS_INVALID_OPTIONS',
      'A certificate needs at least one usage ("server" or "client").',
    );
  }
  const hosts = request.hosts ?? [];
  for (const host of hosts) {
    if (typeof host !== 'string' || host.trim() === '')
      throw new TlsError('TLS_INVALID_OPTIONS', 'Certificate hosts must be non-empty strings.');
  }
  const keys = await generateKeyPair();
  const { notBefore, notAfter } = validityWindow(
    request.validityDays ?? 365,
    request.notBefore,
    ca.certificate.notAfter,
  );
  const subject: JsonName = [
    { CN: [request.commonName] },
    ...(request.organizations ?? []).map((o) => ({ O: [o] })),
  ];
  const extensions: Extension[] = [
    new BasicConstraintsExtension(false, undefined, true),
    new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
    new ExtendedKeyUsageExtension(
      request.usages.map((u) =>
        u === 'server' ? ExtendedKeyUsage.serverAuth : ExtendedKeyUsage.clientAuth,
      ),
      false,
    ),
    await SubjectKeyIdentifierExtension.create(keys.publicKey, false, nodeCrypto),
    await AuthorityKeyIdentifierExtension.create(ca.certificate, false, nodeCrypto),
  ];
  if (hosts.length > 0) {
    const names: JsonGeneralName[] = hosts.map((h) => ({ type: isIP(h) ? 'ip' : 'dns', value: h }));
    extensions.push(new SubjectAlternativeNameExtension(names, false));
  }
  const certificate = await X509CertificateGenerator.create(
    {
      serialNumber: randomSerialNumber(),
      subject,
      issuer: ca.certificate.subjectName,
      notBefore,
      notAfter,
      signingAlgorithm: ECDSA_SHA256,
      publicKey: keys.publicKey,
      signingKey: ca.privateKey,
      extensions,
    },
    nodeCrypto,
  );
  return {
    certificatePem: certificate.toString('pem'),
    keyPem: await exportPrivateKeyPem(keys.privateKey),
    certificate,
  };
}
