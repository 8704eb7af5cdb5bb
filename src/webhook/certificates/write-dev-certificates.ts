import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectories } from '../../files/index.js';
import { createCertificateAuthority, type CertificateAuthority } from '../../tls/index.js';
import { DEV_CA_VALIDITY_DAYS, writeDevServingCertificate } from './renew-dev-certificate.js';

/** The names a dev serving certificate is for: 127.0.0.1, localhost, ::1 and the bind host unless it is a wildcard. */
export function devCertificateHosts(host: string): string[] {
  return [
    ...new Set([
      '127.0.0.1',
      'localhost',
      '::1',
      ...(host === '0.0.0.0' || host === '::' ? [] : [host]),
    ]),
  ];
}

/** Writes a dev CA and a serving certificate for 127.0.0.1/localhost (and the bind host) into dir. */
export async function writeDevCertificates(
  dir: string,
  host: string,
): Promise<{
  ca: CertificateAuthority;
  hosts: string[];
  caPem: string;
  certFile: string;
  keyFile: string;
}> {
  const ca = await createCertificateAuthority('voe-dev-webhook-ca', {
    validityDays: DEV_CA_VALIDITY_DAYS,
  });
  const hosts = devCertificateHosts(host);
  await makeDirectories(dir);
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(join(dir, 'ca.crt'), ca.certificatePem);
  await writeDevServingCertificate(ca, hosts, certFile, keyFile);
  return { ca, hosts, caPem: ca.certificatePem, certFile, keyFile };
}
