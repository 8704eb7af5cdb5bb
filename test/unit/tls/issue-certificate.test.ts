import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  TlsError,
} from '../../../src/tls/index.js';
import { loadCertificateAuthority } from '../../../src/tls/load-certificate-authority.js';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

function keyMatches(certPem: string, keyPem: string): boolean {
  const fromKey = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
  const fromCert = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return fromKey.equals(fromCert);
}

it('a CA is self-signed, a CA, ECDSA P-256 and valid now', async () => {
  const ca = await createCertificateAuthority('voe-test-ca');
  const cert = new X509Certificate(ca.certificatePem);
  assert.isTrue(cert.ca);
  assert.strictEqual(cert.subject, 'CN=voe-test-ca');
  assert.strictEqual(cert.issuer, 'CN=voe-test-ca');
  assert.ok(cert.checkIssued(cert));
  assert.ok(cert.verify(cert.publicKey));
  assert.strictEqual(cert.publicKey.asymmetricKeyType, 'ec');
  assert.strictEqual(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  const now = Date.now();
  assert.ok(new Date(cert.validFrom).getTime() <= now && now < new Date(cert.validTo).getTime());
  assert.ok(keyMatches(ca.certificatePem, ca.keyPem));
  assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----/);
});

it('a serving certificate is issued by the CA with IP and DNS SANs and only serverAuth', async () => {
  const ca = await createCertificateAuthority('voe-test-ca');
  const serving = await issueServingCertificate(ca, {
    hosts: ['127.0.0.1', 'localhost', '::1', 'voe-webhook.voe-system.svc'],
  });
  const cert = new X509Certificate(serving.certificatePem);
  const caCert = new X509Certificate(ca.certificatePem);
  assert.ok(cert.checkIssued(caCert));
  assert.ok(cert.verify(caCert.publicKey));
  assert.isFalse(cert.ca);
  assert.strictEqual(cert.subject, 'CN=127.0.0.1');
  assert.strictEqual(cert.checkIP('127.0.0.1'), '127.0.0.1');
  assert.strictEqual(cert.checkIP('::1'), '::1');
  assert.strictEqual(cert.checkHost('localhost'), 'localhost');
  assert.strictEqual(cert.checkHost('voe-webhook.voe-system.svc'), 'voe-webhook.voe-system.svc');
  assert.isUndefined(cert.checkHost('example.com'));
  assert.isUndefined(cert.checkIP('10.0.0.1'));
  assert.deepStrictEqual(cert.keyUsage, [SERVER_AUTH]);
  assert.ok(keyMatches(serving.certificatePem, serving.keyPem));
  assert.ok(new Date(cert.validTo).getTime() <= new Date(caCert.validTo).getTime());
});

it('a client certificate carries CN=user, one O per group and only clientAuth', async () => {
  const ca = await createCertificateAuthority('client-ca');
  const client = await issueClientCertificate(ca, {
    user: 'admin',
    groups: ['system:masters', 'dev, ops'],
  });
  const cert = new X509Certificate(client.certificatePem);
  assert.ok(cert.checkIssued(new X509Certificate(ca.certificatePem)));
  const lines = cert.subject.split('\n');
  assert.ok(lines.includes('CN=admin'), cert.subject);
  assert.ok(lines.includes('O=system:masters'), cert.subject);
  assert.ok(
    lines.some((l) => l.startsWith('O=') && l.includes('dev') && l.includes('ops')),
    cert.subject,
  );
  assert.deepStrictEqual(cert.keyUsage, [CLIENT_AUTH]);
  assert.isUndefined(cert.subjectAltName);
});

it('validity follows validityDays and never outlives the CA', async () => {
  const ca = await createCertificateAuthority('short-ca', { validityDays: 2 });
  const leaf = await issueClientCertificate(ca, { user: 'u', validityDays: 30 });
  const cert = new X509Certificate(leaf.certificatePem);
  assert.ok(
    new Date(cert.validTo).getTime() <=
      new Date(new X509Certificate(ca.certificatePem).validTo).getTime(),
  );
  const oneDay = await issueServingCertificate(ca, { hosts: ['localhost'], validityDays: 1 });
  const span = new Date(new X509Certificate(oneDay.certificatePem).validTo).getTime() - Date.now();
  assert.ok(span > 23 * 3600_000 && span < 25 * 3600_000, `span ${span}`);
});

it('a CA round-trips through PEM and keeps issuing', async () => {
  const ca = await createCertificateAuthority('reloaded');
  const loaded = await loadCertificateAuthority({
    certificatePem: ca.certificatePem,
    keyPem: ca.keyPem,
  });
  const leaf = await issueServingCertificate(loaded, { hosts: ['localhost'] });
  assert.ok(
    new X509Certificate(leaf.certificatePem).checkIssued(new X509Certificate(ca.certificatePem)),
  );
});

it('invalid input fails with TlsError codes', async () => {
  const ca = await createCertificateAuthority('ca');
  const other = await createCertificateAuthority('other');
  const leaf = await issueServingCertificate(ca, { hosts: ['localhost'] });
  await expectRejection(
    createCertificateAuthority(''),
    (e: unknown) => e instanceof TlsError && e.code === 'TLS_INVALID_OPTIONS',
  );
  await expectRejection(
    issueServingCertificate(ca, { hosts: [] }),
    (e: unknown) => e instanceof TlsError && e.code === 'TLS_INVALID_OPTIONS',
  );
  await expectRejection(
    issueClientCertificate(ca, { user: '' }),
    (e: unknown) => e instanceof TlsError && e.code === 'TLS_INVALID_OPTIONS',
  );
  await expectRejection(
    issueServingCertificate(ca, { hosts: ['x'], validityDays: 0 }),
    (e: unknown) => e instanceof TlsError && e.code === 'TLS_INVALID_OPTIONS',
  );
  await expectRejection(
    loadCertificateAuthority({ certificatePem: 'nope', keyPem: ca.keyPem }),
    (e: unknown) => e instanceof TlsError && e.code === 'TLS_INVALID_PEM',
  );
  await expectRejection(
    loadCertificateAuthority({ certificatePem: leaf.certificatePem, keyPem: leaf.keyPem }),
    (e: unknown) => e instanceof TlsError && e.code === 'TLS_INVALID_PEM',
  );
  await expectRejection(
    loadCertificateAuthority({ certificatePem: ca.certificatePem, keyPem: other.keyPem }),
    (e: unknown) => e instanceof TlsError && e.code === 'TLS_INVALID_PEM',
  );
  await expectRejection(
    loadCertificateAuthority({ certificatePem: ca.certificatePem, keyPem: 'garbage' }),
    (e: unknown) => e instanceof TlsError && e.code === 'TLS_UNSUPPORTED_KEY',
  );
});
