import type { CertificateAuthority, IssuedCertificate } from './certificate-authority.js';
import { issueCertificate } from './issue-certificate.js';
import { TlsError } from './tls-error.js';

export interface ServingCertificateOptions {
  /** DNS names and IP addresses the server answers on (SANs); the first is also the CN. */
  hosts: string[];
  commonName?: string;
  validityDays?: number;
}

/** A TLS server certificate (serverAuth) for `hosts`, signed by `ca`. */
export async function issueServingCertificate(
  ca: CertificateAuthority,
  options: ServingCertificateOptions,
): Promise<IssuedCertificate> {
  const first = options.hosts[0];
  if (first === undefined)
    throw new TlsError(
      'TLS_INVALID_OPTIONS',
      'A serving certificate needs at least one host (DNS name or IP address).',
    );
  return await issueCertificate(ca, {
    commonName: options.commonName ?? first,
    hosts: options.hosts,
    usages: ['server'],
    ...(options.validityDays === undefined ? {} : { validityDays: options.validityDays }),
  });
}
