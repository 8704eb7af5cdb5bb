import { VoeError } from '../errors/index.js';

/** Stable codes of TlsError (documented in docs/errors.md, section "tls"). */
export const TlsErrorCode = {
  InvalidOptions: 'TLS_INVALID_OPTIONS',
  UnsupportedKey: 'TLS_UNSUPPORTED_KEY',
  InvalidPem: 'TLS_INVALID_PEM',
  CertificatesConflict: 'TLS_CERTIFICATES_CONFLICT',
  CertificatesFailed: 'TLS_CERTIFICATES_FAILED',
} as const;

export type TlsErrorCode = (typeof TlsErrorCode)[keyof typeof TlsErrorCode];

export class TlsError extends VoeError<TlsErrorCode> {}
