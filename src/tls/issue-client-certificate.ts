import type { CertificateAuthority, IssuedCertificate } from './certificate-authority.js';
import { issueCertificate } from './issue-certificate.js';
import { TlsError } from './tls-error.js';

export interface ClientCertificateOptions {
  /** Becomes the subject CN: the user name Kubernetes authenticates. */
  user: string;
  /** Each becomes one subject O: the groups Kubernetes authenticates (e.g. system:masters). */
  groups?: string[];
  validityDays?: number;
}

/** A TLS client certificate (clientAuth) with CN=user and O=group per group, signed by `ca`. */
export async function issueClientCertificate(
  ca: CertificateAuthority,
  options: ClientCertificateOptions,
): Promise<IssuedCertificate> {
  if (typeof options.user !== 'string' || options.user === '') {
    throw new TlsError(
      'TLS_INVALID_OPTIONS',
      'A client certificate needs a non-empty user (the subject CN).',
    );
  }
  return await issueCertificate(ca, {
    commonName: options.user,
    organizations: options.groups ?? [],
    usages: ['client'],
    ...(options.validityDays === undefined ? {} : { validityDays: options.validityDays }),
  });
}
