import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectories } from '../files/index.js';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  writePrivateFile,
  type CertificateAuthority,
} from '../tls/index.js';
import type { TlsClient } from './http-probe.js';

/** The control plane's CAs and its admin's client certificate. */
export interface Pki {
  clientCa: CertificateAuthority;
  servingCa: CertificateAuthority;
  admin: TlsClient;
}

/**
 * Writes the control plane's PKI into `pkiDir` (made mode 0700): a client CA, a serving CA and
 * kube-apiserver's serving certificate for 127.0.0.1 and localhost, and the service-account key
 * pair; the admin's client certificate (system:masters) is returned, not written.
 */
export async function writePki(pkiDir: string): Promise<Pki> {
  await makeDirectories(pkiDir, 0o700);
  const [clientCa, servingCa] = await Promise.all([
    createCertificateAuthority('voe-client-ca'),
    createCertificateAuthority('voe-serving-ca'),
  ]);
  const serving = await issueServingCertificate(servingCa, { hosts: ['127.0.0.1', 'localhost'] });
  const admin = await issueClientCertificate(clientCa, {
    user: 'voe-admin',
    groups: ['system:masters'],
  });
  const sa = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  await Promise.all([
    writeFile(join(pkiDir, 'client-ca.crt'), clientCa.certificatePem),
    writePrivateFile(join(pkiDir, 'client-ca.key'), clientCa.keyPem),
    writeFile(join(pkiDir, 'serving-ca.crt'), servingCa.certificatePem),
    writeFile(join(pkiDir, 'apiserver.crt'), serving.certificatePem),
    writePrivateFile(join(pkiDir, 'apiserver.key'), serving.keyPem),
    writePrivateFile(
      join(pkiDir, 'sa.key'),
      sa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    ),
    writeFile(
      join(pkiDir, 'sa.pub'),
      sa.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    ),
  ]);
  return {
    clientCa,
    servingCa,
    admin: { ca: servingCa.certificatePem, cert: admin.certificatePem, key: admin.keyPem },
  };
}
