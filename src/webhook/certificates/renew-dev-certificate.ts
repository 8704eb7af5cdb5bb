import {
  issueServingCertificate,
  writePrivateFile,
  type CertificateAuthority,
} from '../../tls/index.js';
import type { Logger } from '../../log/index.js';

/** Days a dev serving certificate is valid (never beyond its CA). */
export const DEV_SERVING_VALIDITY_DAYS = 30;
/** Days the dev CA is valid: the registered caBundle trusts it, so it is not replaced while voe serve --dev runs. */
export const DEV_CA_VALIDITY_DAYS = 365;
/** A new dev serving certificate is issued this long after the last one: 10 days before it expires. */
export const DEV_RENEW_EVERY_MS = 20 * 24 * 3600 * 1000;
/** After a failed renewal (e.g. the cert dir not writable), the next try. */
export const DEV_RENEW_RETRY_MS = 3600 * 1000;

/**
 * Issues a dev serving certificate (DEV_SERVING_VALIDITY_DAYS, for `hosts`) from the dev CA and
 * writes it over certFile and keyFile, each by a rename (written aside, then moved over the old
 * file, 0600): a reloader watching them never reads half a file. What voe serve --dev writes at
 * start and at each renewal. Resolves with the certificate's end.
 */
export async function writeDevServingCertificate(
  ca: CertificateAuthority,
  hosts: string[],
  certFile: string,
  keyFile: string,
): Promise<Date> {
  const serving = await issueServingCertificate(ca, {
    hosts,
    validityDays: DEV_SERVING_VALIDITY_DAYS,
  });
  await writePrivateFile(certFile, serving.certificatePem);
  await writePrivateFile(keyFile, serving.keyPem);
  return serving.certificate.notAfter;
}

export interface DevCertificateRenewalOptions {
  /** The dev CA (in memory only: its key is never written). */
  ca: CertificateAuthority;
  hosts: string[];
  certFile: string;
  keyFile: string;
  logger: Logger;
  /** Default DEV_RENEW_EVERY_MS (tests: shorter). */
  renewEveryMs?: number;
  /** Default DEV_RENEW_RETRY_MS. */
  retryMs?: number;
}

export interface DevCertificateRenewal {
  /** Stops renewing; a renewal being written finishes first. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Keeps `voe serve --dev`'s serving certificate valid while it runs: every `renewEveryMs` it
 * issues a new one from the same dev CA (so the registered caBundle still trusts it) and replaces
 * tls.crt and tls.key, each by a rename; the server's certificate reloader serves it to new
 * connections. A renewal that fails is logged and tried again after `retryMs`. Once the CA's own
 * end cuts a new certificate short, it says (once) that voe serve --dev needs a restart.
 */
export function startDevCertificateRenewal(
  options: DevCertificateRenewalOptions,
): DevCertificateRenewal {
  const every = options.renewEveryMs ?? DEV_RENEW_EVERY_MS;
  const retry = options.retryMs ?? DEV_RENEW_RETRY_MS;
  const log = options.logger;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let writing: Promise<void> | undefined;
  let warnedCa = false;

  const schedule = (ms: number): void => {
    if (stopped) return;
    // setTimeout holds at most 2^31-1 ms (~24.8 days).
    timer = setTimeout(
      () => {
        timer = undefined;
        writing = renew().finally(() => {
          writing = undefined;
        });
      },
      Math.min(ms, 2 ** 31 - 1),
    );
    timer.unref();
  };

  async function renew(): Promise<void> {
    try {
      if (stopped) return;
      const notAfter = await writeDevServingCertificate(
        options.ca,
        options.hosts,
        options.certFile,
        options.keyFile,
      );
      log.info(
        { certFile: options.certFile, notAfter: notAfter.toISOString() },
        'dev serving certificate renewed',
      );
      // Cut short by the CA's own end (a certificate never outlives its issuer): no renewal can go further.
      const caNotAfter = options.ca.certificate.notAfter;
      if (!warnedCa && notAfter.getTime() >= caNotAfter.getTime() - 60_000) {
        warnedCa = true;
        log.warn(
          { caNotAfter: caNotAfter.toISOString() },
          'the dev CA expires then, and the serving certificate with it: restart voe serve --dev before then (it makes a new CA and registers it)',
        );
      }
      schedule(every);
    } catch (error) {
      log.error(
        {
          certFile: options.certFile,
          error: error instanceof Error ? error.message : String(error),
          retryInMs: retry,
        },
        'could not renew the dev serving certificate; still serving the current one, trying again later',
      );
      schedule(retry);
    }
  }

  schedule(every);
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await writing;
    },
  };
}
