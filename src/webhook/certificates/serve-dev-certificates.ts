import type { Logger } from '../../log/index.js';
import { certDirUnwritable } from './lock-cert-dir.js';
import { continueUnlessAborted } from '../continue-unless-aborted.js';
import { devCertDir } from './dev-cert-dir.js';
import { startDevCertificateRenewal } from './renew-dev-certificate.js';
import type { StartUpCleanups } from '../start-up-cleanups.js';
import { writeDevCertificates } from './write-dev-certificates.js';

export interface DevCertificates {
  /** Holds ca.crt, tls.crt and tls.key. */
  certDir: string;
  /** The dev CA, for the registered caBundle. */
  caPem: string;
  certFile: string;
  keyFile: string;
}

/**
 * voe serve --dev's certificates: a locked directory, a dev CA and serving certificate written
 * into it, and the serving certificate's renewal (stopped by the cleanups).
 */
export async function serveDevCertificates(options: {
  certDir: string | undefined;
  host: string;
  renewEveryMs: number | undefined;
  cleanups: StartUpCleanups;
  logger: Logger;
  signal: AbortSignal | undefined;
}): Promise<DevCertificates> {
  const { cleanups, logger: log, signal } = options;
  const certDir = await devCertDir(options.certDir, cleanups, log, signal);
  const dev = await writeDevCertificates(certDir, options.host).catch((error: unknown) => {
    throw certDirUnwritable(
      certDir,
      (error as NodeJS.ErrnoException).code ?? (error as Error).message,
      error,
    );
  });
  const renewal = startDevCertificateRenewal({
    ca: dev.ca,
    hosts: dev.hosts,
    certFile: dev.certFile,
    keyFile: dev.keyFile,
    logger: log,
    ...(options.renewEveryMs === undefined ? {} : { renewEveryMs: options.renewEveryMs }),
  });
  cleanups.add({
    run: () => renewal.stop(),
    left: (why) => `Could not stop renewing the dev certificate: ${why}.`,
  });
  log.info({ certDir }, 'dev certificates written (ca.crt, tls.crt, tls.key)');
  continueUnlessAborted(signal);
  return { certDir, caPem: dev.caPem, certFile: dev.certFile, keyFile: dev.keyFile };
}
