import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../../support/cleanup.js';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type CertificateAuthority,
} from '../../../../src/tls/index.js';
import { startDevCertificateRenewal } from '../../../../src/webhook/certificates/renew-dev-certificate.js';
import { captureLogger } from '../../../support/capture-logger.js';
import { eventually } from '../../../support/eventually.js';

const HOSTS = ['127.0.0.1', 'localhost', '::1'];

async function devFiles(
  caDays = 365,
): Promise<{ certFile: string; keyFile: string; ca: CertificateAuthority }> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-renew-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const ca = await createCertificateAuthority('voe-dev-webhook-ca', { validityDays: caDays });
  const serving = await issueServingCertificate(ca, { hosts: HOSTS, validityDays: 30 });
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(certFile, serving.certificatePem);
  await writeFile(keyFile, serving.keyPem, { mode: 0o600 });
  return { certFile, keyFile, ca };
}

it('startDevCertificateRenewal replaces tls.crt and tls.key with a pair from the same CA for the same hosts, each time, and stops when told', async () => {
  const { certFile, keyFile, ca } = await devFiles();
  const first = await readFile(certFile, 'utf8');
  const capture = captureLogger();
  const renewal = startDevCertificateRenewal({
    ca,
    hosts: HOSTS,
    certFile,
    keyFile,
    logger: capture.logger,
    renewEveryMs: 300,
  });
  onCleanup(() => renewal.stop());
  const renewed = () =>
    capture.lines().filter((l) => l['msg'] === 'dev serving certificate renewed');
  await eventually(() => renewed().length >= 2, 20_000, 'two renewals');
  await renewal.stop();
  const count = renewed().length;

  const cert = new X509Certificate(await readFile(certFile, 'utf8'));
  assert.notStrictEqual(
    cert.toString(),
    new X509Certificate(first).toString(),
    'a new certificate',
  );
  assert.ok(
    cert.verify(new X509Certificate(ca.certificatePem).publicKey),
    'signed by the same CA, which the registered caBundle trusts',
  );
  assert.ok(
    cert.checkPrivateKey(createPrivateKey(await readFile(keyFile, 'utf8'))),
    'tls.key is its key',
  );
  for (const host of HOSTS)
    assert.ok(cert.checkHost(host) !== undefined || cert.checkIP(host) !== undefined, host);
  const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
  assert.ok(days > 29 && days < 31, `valid for 30 days (${days})`);
  assert.strictEqual((await stat(keyFile)).mode & 0o777, 0o600);
  assert.strictEqual(renewed().at(-1)?.['notAfter'], new Date(cert.validTo).toISOString());
  assert.ok(!capture.text().includes('PRIVATE KEY'), 'no key in the logs');
  assert.strictEqual(
    capture.lines().filter((l) => (l['level'] as number) >= 40).length,
    0,
    'nothing to warn about with a CA valid for a year',
  );

  await new Promise((resolve) => setTimeout(resolve, 1_000));
  assert.strictEqual(renewed().length, count, 'no renewal after stop()');
});

it('startDevCertificateRenewal: a renewal that cannot write is logged and tried again, and succeeds once it can', async () => {
  const { certFile, keyFile, ca } = await devFiles();
  const first = await readFile(certFile, 'utf8');
  // No file can be renamed over a directory (not even by root, whom modes do not stop).
  await rm(certFile);
  await mkdir(certFile);
  const capture = captureLogger();
  const renewal = startDevCertificateRenewal({
    ca,
    hosts: HOSTS,
    certFile,
    keyFile,
    logger: capture.logger,
    renewEveryMs: 200,
    retryMs: 200,
  });
  onCleanup(() => renewal.stop());
  const failed = () =>
    capture
      .lines()
      .filter(
        (l) =>
          l['msg'] ===
          'could not renew the dev serving certificate; still serving the current one, trying again later',
      );
  await eventually(() => failed().length >= 2, 20_000, 'two failed tries');
  assert.match(String(failed()[0]?.['error']), /EISDIR/);
  assert.strictEqual(failed()[0]?.['retryInMs'], 200);
  assert.strictEqual(
    capture.lines().filter((l) => l['msg'] === 'dev serving certificate renewed').length,
    0,
  );
  await rm(certFile, { recursive: true });
  await eventually(
    () => capture.lines().some((l) => l['msg'] === 'dev serving certificate renewed'),
    20_000,
    'renewed once it can write',
  );
  await renewal.stop();
  const cert = new X509Certificate(await readFile(certFile, 'utf8'));
  assert.notStrictEqual(cert.toString(), new X509Certificate(first).toString());
  assert.ok(
    cert.checkPrivateKey(createPrivateKey(await readFile(keyFile, 'utf8'))),
    'tls.key is its key',
  );
});

it('startDevCertificateRenewal says once that voe serve --dev needs a restart when the CA ends before a new certificate would', async () => {
  const { certFile, keyFile, ca } = await devFiles(2);
  const capture = captureLogger();
  const renewal = startDevCertificateRenewal({
    ca,
    hosts: HOSTS,
    certFile,
    keyFile,
    logger: capture.logger,
    renewEveryMs: 200,
  });
  onCleanup(() => renewal.stop());
  await eventually(
    () => capture.lines().filter((l) => l['msg'] === 'dev serving certificate renewed').length >= 3,
    20_000,
    'three renewals',
  );
  await renewal.stop();
  const warnings = capture.lines().filter((l) => l['level'] === 40);
  assert.strictEqual(warnings.length, 1, JSON.stringify(warnings));
  assert.match(
    String(warnings[0]?.['msg']),
    /^the dev CA expires then, and the serving certificate with it: restart voe serve --dev before then/,
  );
  assert.strictEqual(warnings[0]?.['caNotAfter'], ca.certificate.notAfter.toISOString());
  const cert = new X509Certificate(await readFile(certFile, 'utf8'));
  assert.ok(Date.parse(cert.validTo) <= ca.certificate.notAfter.getTime(), 'never beyond its CA');
});
