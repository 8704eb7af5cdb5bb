import { WebhookError } from '../webhook-error.js';

/**
 * Where the serving certificate comes from: --dev generates one (into certDir, or a temporary
 * directory), in cluster the given files are served.
 */
export type CertificateSource =
  { dev: true; certDir: string | undefined } | { dev: false; certFile: string; keyFile: string };

/**
 * Checks serveWebhook's certificate options against each other (WEBHOOK_INVALID_OPTIONS when
 * they conflict or are missing) and says where the certificate comes from.
 */
export function certificateSource(options: {
  dev: boolean;
  certDir?: string | undefined;
  tlsCertFile?: string | undefined;
  tlsKeyFile?: string | undefined;
}): CertificateSource {
  const { tlsCertFile: certFile, tlsKeyFile: keyFile } = options;
  if (options.dev && (certFile || keyFile)) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      '--tls-cert-file and --tls-key-file serve in cluster; --dev generates its own certificate. Give one or the other.',
    );
  }
  if (!options.dev && options.certDir) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      '--cert-dir is where --dev writes its certificate; without --dev give --tls-cert-file and --tls-key-file.',
    );
  }
  if (options.dev) return { dev: true, certDir: options.certDir };
  if (!certFile || !keyFile) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      'Serving in cluster needs --tls-cert-file and --tls-key-file (or --dev to generate a local certificate).',
    );
  }
  return { dev: false, certFile, keyFile };
}
