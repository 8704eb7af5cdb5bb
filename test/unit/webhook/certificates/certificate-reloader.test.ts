import { describe, it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../../support/cleanup.js';
import { expectRejection } from '../../../support/expect-error.js';
import { Agent, get as httpsGet } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCertificatePair } from '../../../../src/webhook/certificates/load-certificate-pair.js';
import { createWebhookServer } from '../../../../src/webhook/create-webhook-server.js';
import { createCertificateAuthority, issueServingCertificate } from '../../../../src/tls/index.js';
import type { IssuedCertificate } from '../../../../src/tls/certificate-authority.js';
import { issueCertificate } from '../../../../src/tls/issue-certificate.js';
import { captureLogger } from '../../../support/capture-logger.js';
import { eventually } from '../../../support/eventually.js';

const execFileAsync = promisify(execFile);

async function newPair(): Promise<IssuedCertificate> {
  const ca = await createCertificateAuthority(`ca-${Math.random().toString(16).slice(2)}`);
  return await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
}

function fingerprint(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}

/** The fingerprint of the certificate a fresh TLS connection is served. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const fp = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fp);
    });
    socket.on('error', reject);
  });
}

function settles(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  return eventually(check, 15_000, what);
}

/** A temporary directory holding tls.crt and tls.key of a fresh pair `a` (removed after the test). */
async function pairFiles(): Promise<{
  dir: string;
  certFile: string;
  keyFile: string;
  a: IssuedCertificate;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-reload-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  const a = await newPair();
  await writeFile(certFile, a.certificatePem);
  await writeFile(keyFile, a.keyPem);
  return { dir, certFile, keyFile, a };
}

/** A server on the pair; `settleMs`: how long an incomplete pair is read again before it counts as a failure (default the server's, 10 s). */
async function startServer(certFile: string, keyFile: string, settleMs?: number) {
  const logs = captureLogger();
  const server = createWebhookServer({
    validators: [],
    tls: { certFile, keyFile },
    ready: () => true,
    logger: logs.logger,
    certificateDebounceMs: 20,
    ...(settleMs === undefined ? {} : { certificateSettleMs: settleMs }),
  });
  const { port } = await server.listen(0, '127.0.0.1');
  onCleanup(() => server.close());
  return { server, port, logs };
}

it('rewritten files are served without a restart; an invalid pair keeps the previous certificate', async () => {
  const { certFile, keyFile, a } = await pairFiles();
  // An invalid pair counts as a failure once it stayed so for 500 ms (not the default 10 s: this test waits for it).
  const { server, port, logs } = await startServer(certFile, keyFile, 500);
  assert.strictEqual(await servedFingerprint(port), fingerprint(a.certificatePem));

  const b = await newPair();
  await writeFile(certFile, b.certificatePem);
  await writeFile(keyFile, b.keyPem);
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(b.certificatePem),
    'certificate B to be served',
  );

  // A key that does not belong to the certificate: logged, ignored, B still served.
  const c = await newPair();
  await writeFile(certFile, c.certificatePem);
  assert.isFalse(await server.reloadCertificate());
  await settles(
    () => logs.text().includes('still serving the previous certificate'),
    'the invalid pair to be logged',
  );
  assert.strictEqual(await servedFingerprint(port), fingerprint(b.certificatePem));
  await writeFile(certFile, 'not a certificate');
  assert.isFalse(await server.reloadCertificate());
  assert.strictEqual(await servedFingerprint(port), fingerprint(b.certificatePem));
  assert.match(
    await server.registry.metrics(),
    /voe_webhook_certificate_reloads_total\{result="failure"\} [1-9]/,
  );
  assert.ok(
    !logs.text().includes(c.keyPem.split('\n')[1] ?? 'unreachable'),
    'no key material in logs',
  );

  // Fixed: the next valid pair is picked up.
  await writeFile(keyFile, c.keyPem);
  await writeFile(certFile, c.certificatePem);
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(c.certificatePem),
    'certificate C to be served',
  );
  const metrics = await server.registry.metrics();
  assert.match(metrics, /voe_webhook_certificate_reloads_total\{result="success"\} [3-9]/);
  const expiry = Number(
    /voe_webhook_certificate_expiry_timestamp_seconds (\d+)/.exec(metrics)?.[1],
  );
  assert.strictEqual(
    expiry,
    Math.floor(new Date(new X509Certificate(c.certificatePem).validTo).getTime() / 1000),
  );
});

it('a connection open before a reload keeps its certificate and goes on answering; new handshakes get the new one', async () => {
  const { certFile, keyFile, a } = await pairFiles();
  const { server, port } = await startServer(certFile, keyFile);
  // As the API server does: one kept-alive connection, reused for each call.
  const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  onCleanup(() => agent.destroy());
  const livez = (): Promise<{ body: string; reused: boolean; served: string; local: number }> =>
    new Promise((resolve, reject) => {
      const req = httpsGet({ host: '127.0.0.1', port, path: '/livez', agent }, (res) => {
        const socket = res.socket as TLSSocket;
        const served = socket.getPeerCertificate().fingerprint256;
        const local = socket.localPort ?? 0;
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ body, reused: req.reusedSocket, served, local }));
      });
      req.on('error', reject);
    });
  const first = await livez();
  assert.strictEqual(first.served, fingerprint(a.certificatePem));
  const b = await newPair();
  await writeFile(certFile, b.certificatePem);
  await writeFile(keyFile, b.keyPem);
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(b.certificatePem),
    'new handshakes to get certificate B',
  );
  const again = await livez();
  assert.deepStrictEqual(
    again,
    { body: 'ok', reused: true, served: fingerprint(a.certificatePem), local: first.local },
    'the same connection, with its certificate A, still answers',
  );
  assert.strictEqual(await reloads(server, 'success'), 2);
});

it('a Kubernetes Secret volume update (..data symlink swap) is picked up', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-secret-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  // The layout kubelet's atomic writer produces: timestamped dir, ..data -> it, files -> ..data/file.
  async function version(name: string, pair: IssuedCertificate): Promise<void> {
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, 'tls.crt'), pair.certificatePem);
    await writeFile(join(dir, name, 'tls.key'), pair.keyPem);
  }
  const a = await newPair();
  await version('..2026_11_21_06_00_00.000000001', a);
  await symlink('..2026_11_21_06_00_00.000000001', join(dir, '..data'));
  await symlink('..data/tls.crt', join(dir, 'tls.crt'));
  await symlink('..data/tls.key', join(dir, 'tls.key'));
  const { port } = await startServer(join(dir, 'tls.crt'), join(dir, 'tls.key'));
  assert.strictEqual(await servedFingerprint(port), fingerprint(a.certificatePem));

  const b = await newPair();
  await version('..2026_11_21_06_05_00.000000002', b);
  await symlink('..2026_11_21_06_05_00.000000002', join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  await rm(join(dir, '..2026_11_21_06_00_00.000000001'), { recursive: true });
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(b.certificatePem),
    'the swapped certificate to be served',
  );
});

it('an empty key, or a key of another type than the certificate (RSA beside ECDSA), is refused on reload: never served', async () => {
  const { certFile, keyFile, a } = await pairFiles();
  const { server, port } = await startServer(certFile, keyFile);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  for (const key of ['', '\n', privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()]) {
    await writeFile(keyFile, key);
    assert.isFalse(await server.reloadCertificate(), JSON.stringify(key.slice(0, 30)));
    assert.strictEqual(
      await servedFingerprint(port),
      fingerprint(a.certificatePem),
      'the previous pair still serves, handshakes work',
    );
  }
});

it('a certificate directory removed and made again, or renamed over, is watched anew: later changes are picked up at once, not at the next poll', async () => {
  const { dir, certFile, keyFile } = await pairFiles();
  const { port, logs } = await startServer(certFile, keyFile);
  // Removed and made again (a deploy script's `rm -r certs && cp -r new certs`).
  const b = await newPair();
  await rm(dir, { recursive: true });
  await mkdir(dir);
  await writeFile(certFile, b.certificatePem);
  await writeFile(keyFile, b.keyPem);
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(b.certificatePem),
    'certificate B in the new directory',
  );
  const c = await newPair();
  await writeFile(keyFile, c.keyPem);
  await writeFile(certFile, c.certificatePem);
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(c.certificatePem),
    'certificate C written into the new directory (the poll is 60 s away)',
  );
  // Another directory renamed over it.
  const d = await newPair();
  const staged = `${dir}.new`;
  onCleanup(() => rm(staged, { recursive: true, force: true }));
  await mkdir(staged);
  await writeFile(join(staged, 'tls.crt'), d.certificatePem);
  await writeFile(join(staged, 'tls.key'), d.keyPem);
  await rm(dir, { recursive: true });
  await rename(staged, dir);
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(d.certificatePem),
    'certificate D of the directory renamed over it',
  );
  const e = await newPair();
  await writeFile(keyFile, e.keyPem);
  await writeFile(certFile, e.certificatePem);
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(e.certificatePem),
    'certificate E written into it',
  );
  assert.ok(
    !logs.text().includes('are not a valid certificate and key pair'),
    'nothing counted as failed meanwhile',
  );
});

it('listen again after a failed listen still reloads changed files', async () => {
  const { certFile, keyFile } = await pairFiles();
  const busy = await startServer(certFile, keyFile);
  const logs = captureLogger();
  const server = createWebhookServer({
    validators: [],
    tls: { certFile, keyFile },
    ready: () => true,
    logger: logs.logger,
    certificateDebounceMs: 20,
  });
  onCleanup(() => server.close());
  await expectRejection(
    server.listen(busy.port, '127.0.0.1'),
    /WEBHOOK_LISTEN_FAILED|Cannot listen/,
  );
  const { port } = await server.listen(0, '127.0.0.1');
  const b = await newPair();
  await writeFile(certFile, b.certificatePem);
  await writeFile(keyFile, b.keyPem);
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(b.certificatePem),
    'certificate B served after the second listen',
  );
});

/** A pair whose certificate is valid from `notBefore` for `days` days (expired, or not valid yet). */
async function pairValidFrom(notBefore: Date, days: number): Promise<IssuedCertificate> {
  const ca = await createCertificateAuthority(`ca-${Math.random().toString(16).slice(2)}`, {
    notBefore: new Date('2024-01-01T00:00:00Z'),
  });
  return await issueCertificate(ca, {
    commonName: '127.0.0.1',
    hosts: ['127.0.0.1'],
    usages: ['server'],
    validityDays: days,
    notBefore,
  });
}

it('an expired certificate, or one not valid yet, never replaces one the API server accepts: logged, counted as a failed reload, the previous one served', async () => {
  const { certFile, keyFile, a } = await pairFiles();
  const { server, port, logs } = await startServer(certFile, keyFile);
  for (const [what, pair] of [
    ['expired', await pairValidFrom(new Date('2025-01-01T00:00:00Z'), 30)],
    ['not valid yet', await pairValidFrom(new Date(Date.now() + 400 * 24 * 3600 * 1000), 30)],
  ] as const) {
    await writeFile(keyFile, pair.keyPem);
    await writeFile(certFile, pair.certificatePem);
    assert.isFalse(await server.reloadCertificate(), what);
    assert.strictEqual(
      await servedFingerprint(port),
      fingerprint(a.certificatePem),
      `${what}: the previous certificate is still served`,
    );
  }
  await settles(
    () =>
      logs.text().includes('the certificate expired at 2025-01-31') &&
      logs.text().includes('the certificate is not valid before'),
    'both to be logged',
  );
  assert.match(
    logs.text(),
    /the new certificate cannot be served now; still serving the previous certificate/,
  );
  // At least these two (the file watcher may also have read a half-written pair: a key without its certificate).
  assert.match(
    await server.registry.metrics(),
    /voe_webhook_certificate_reloads_total\{result="failure"\} ([2-9]|\d\d)\n/,
  );
  const expiry = Number(
    /voe_webhook_certificate_expiry_timestamp_seconds (\d+)/.exec(
      await server.registry.metrics(),
    )?.[1],
  );
  assert.strictEqual(
    expiry,
    Math.floor(new Date(new X509Certificate(a.certificatePem).validTo).getTime() / 1000),
    "the expiry gauge is the served certificate's",
  );
});

it('started with an expired certificate: it is served (there is no other), the log says so and /readyz is not ready, naming the expiry', async () => {
  const { certFile, keyFile } = await pairFiles();
  const expired = await pairValidFrom(new Date('2025-01-01T00:00:00Z'), 30);
  await writeFile(certFile, expired.certificatePem);
  await writeFile(keyFile, expired.keyPem);
  const { port, logs } = await startServer(certFile, keyFile);
  assert.match(
    logs.text(),
    /the serving certificate cannot be served now: the API server will refuse it/,
  );
  const readyz = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpsGet(
      { host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
  });
  assert.strictEqual(readyz.status, 503);
  assert.strictEqual(
    readyz.body,
    'not ready: certificate not servable: the certificate expired at 2025-01-31T00:05:00.000Z',
  );
});

/** voe_webhook_certificate_reloads_total{result} of `server`. */
async function reloads(
  server: { registry: { metrics(): Promise<string> } },
  result: 'success' | 'failure',
): Promise<number> {
  return Number(
    new RegExp(`^voe_webhook_certificate_reloads_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(
      await server.registry.metrics(),
    )?.[1],
  );
}

it('a certificate that expires while served: the log says so when it does, /readyz turns 503 naming the expiry, the expiry metric keeps its notAfter', async () => {
  const { certFile, keyFile } = await pairFiles();
  // Valid for about 2 s more (a certificate's times are whole seconds).
  const short = await pairValidFrom(new Date(Date.now() - 5 * 60_000), 2 / 86_400);
  const notAfter = new Date(new X509Certificate(short.certificatePem).validTo);
  await writeFile(certFile, short.certificatePem);
  await writeFile(keyFile, short.keyPem);
  const { server, port, logs } = await startServer(certFile, keyFile);
  const readyz = (): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = httpsGet(
        { host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => {
            body += c.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
    });
  assert.deepStrictEqual(await readyz(), { status: 200, body: 'ok' });
  await settles(
    () => logs.text().includes('the serving certificate expired'),
    'the expiry to be logged',
  );
  const line = logs.lines().find((l) => /^the serving certificate expired/.test(String(l['msg'])))!;
  assert.strictEqual(line['level'], 40);
  assert.strictEqual(line['notAfter'], notAfter.toISOString());
  assert.ok(Date.now() > notAfter.getTime(), 'said once it expired, not before');
  assert.deepStrictEqual(await readyz(), {
    status: 503,
    body: `not ready: certificate not servable: the certificate expired at ${notAfter.toISOString()}`,
  });
  const metrics = await server.registry.metrics();
  assert.match(
    metrics,
    new RegExp(
      `^voe_webhook_certificate_expiry_timestamp_seconds ${notAfter.getTime() / 1000}$`,
      'm',
    ),
  );
  assert.strictEqual(await reloads(server, 'failure'), 0, 'nothing was reloaded');
});

it('a pair written one file after the other (the certificate, the key a moment later) is never served half-way, and counts no failure once the key arrives', async () => {
  const { certFile, keyFile, a } = await pairFiles();
  const { server, port, logs } = await startServer(certFile, keyFile);
  const b = await newPair();
  // As a writer that renders each file by itself (e.g. a Vault agent template per file) leaves it:
  // the new certificate beside the old key, read by the watcher (debounce 20 ms) several times.
  await writeFile(certFile, b.certificatePem);
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 150));
    assert.strictEqual(
      await servedFingerprint(port),
      fingerprint(a.certificatePem),
      'the previous pair serves meanwhile, handshakes work',
    );
  }
  await writeFile(keyFile, b.keyPem);
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(b.certificatePem),
    'certificate B served once its key arrived',
  );
  // Files removed, then written again one by one: the same.
  const c = await newPair();
  await rm(certFile);
  await rm(keyFile);
  await new Promise((r) => setTimeout(r, 300));
  await writeFile(keyFile, c.keyPem);
  await new Promise((r) => setTimeout(r, 300));
  await writeFile(certFile, c.certificatePem);
  await settles(
    async () => (await servedFingerprint(port)) === fingerprint(c.certificatePem),
    'certificate C served once both files are back',
  );
  assert.strictEqual(
    await reloads(server, 'failure'),
    0,
    'an incomplete pair that is completed is no failed reload',
  );
  assert.strictEqual(await reloads(server, 'success'), 3);
  assert.ok(!logs.text().includes('are not a valid certificate and key pair'), logs.text());
});

it('a pair that stays invalid past the settle time counts as one failed reload, logged once', async () => {
  const { certFile, keyFile, a } = await pairFiles();
  const logs = captureLogger();
  const server = createWebhookServer({
    validators: [],
    tls: { certFile, keyFile },
    ready: () => true,
    logger: logs.logger,
    certificateDebounceMs: 20,
    certificateSettleMs: 400,
  });
  const { port } = await server.listen(0, '127.0.0.1');
  onCleanup(() => server.close());
  await writeFile(certFile, (await newPair()).certificatePem);
  await settles(
    async () => (await reloads(server, 'failure')) === 1,
    'the failure counted once the settle time passed',
  );
  assert.match(
    logs.text(),
    /"error":"the key does not belong to the certificate".*still serving the previous certificate/,
  );
  await new Promise((r) => setTimeout(r, 1_000));
  assert.strictEqual(await reloads(server, 'failure'), 1, 'counted once, not once per read');
  assert.strictEqual(
    logs.lines().filter((l) => /not a valid certificate and key pair/.test(String(l['msg'])))
      .length,
    1,
  );
  assert.strictEqual(await servedFingerprint(port), fingerprint(a.certificatePem));
});

it('an encrypted (passphrase-protected) key is refused with a message that says so, in every PEM form', async () => {
  const { certFile, keyFile, a } = await pairFiles();
  const encrypted = { pkcs8: encryptedKey(a, 'pkcs8'), sec1: encryptedKey(a, 'sec1') };
  assert.match(encrypted.sec1, /Proc-Type: 4,ENCRYPTED/);
  for (const [form, pem] of Object.entries(encrypted)) {
    await writeFile(keyFile, pem);
    await expectRejection(
      loadCertificatePair(certFile, keyFile),
      {
        message: `the key file ${keyFile} holds an encrypted (passphrase-protected) private key; voe needs it unencrypted (cert-manager writes it so; decrypt it with: openssl pkey -in KEY -out KEY.plain)`,
      },
      form,
    );
  }
});

/** `a`'s key encrypted with a passphrase, in PEM form `type`. */
function encryptedKey(a: IssuedCertificate, type: 'pkcs8' | 'sec1'): string {
  return createPrivateKey(a.keyPem)
    .export({ type, format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' })
    .toString();
}

describe('a key the server cannot serve fails its start-up', () => {
  const encryptedMessage =
    /^WebhookError: Cannot load the serving certificate .* holds an encrypted \(passphrase-protected\) private key/;
  const cases: Array<{ title: string; key: (a: IssuedCertificate) => string; error: RegExp }> = [
    {
      title: 'an empty key',
      key: () => '',
      error: /WEBHOOK_TLS_LOAD_FAILED|the key file .* is empty/,
    },
    {
      title: 'an encrypted PKCS#8 key',
      key: (a) => encryptedKey(a, 'pkcs8'),
      error: encryptedMessage,
    },
    {
      title: 'an encrypted SEC1 key',
      key: (a) => encryptedKey(a, 'sec1'),
      error: encryptedMessage,
    },
  ];
  for (const { title, key, error } of cases) {
    it(title, async () => {
      const { certFile, keyFile, a } = await pairFiles();
      await writeFile(keyFile, key(a));
      const server = createWebhookServer({
        validators: [],
        tls: { certFile, keyFile },
        ready: () => true,
        logger: captureLogger().logger,
      });
      await expectRejection(server.listen(0, '127.0.0.1'), error);
      await server.close();
    });
  }
});

/** Runs openssl with `args` in `cwd` (argument array, no shell). */
async function openssl(cwd: string, args: string[]): Promise<void> {
  await execFileAsync('openssl', args, { cwd });
}

it('a chain with an intermediate CA is served whole (RSA leaf, PKCS#1 or PKCS#8 key); a file with the intermediate first says so', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-chain-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  // What an operator's own PKI (or cert-manager's tls.crt, which carries the chain) gives: root -> intermediate -> leaf.
  await writeFile(
    join(dir, 'ca.ext'),
    'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n',
  );
  await writeFile(
    join(dir, 'leaf.ext'),
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n',
  );
  await openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'root.key',
    '-out',
    'root.crt',
    '-days',
    '2',
    '-subj',
    '/CN=voe-test-root',
  ]);
  await openssl(dir, [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'int.key',
    '-out',
    'int.csr',
    '-subj',
    '/CN=voe-test-intermediate',
  ]);
  await openssl(dir, [
    'x509',
    '-req',
    '-in',
    'int.csr',
    '-CA',
    'root.crt',
    '-CAkey',
    'root.key',
    '-set_serial',
    '2',
    '-days',
    '2',
    '-extfile',
    'ca.ext',
    '-out',
    'int.crt',
  ]);
  await openssl(dir, ['genrsa', '-traditional', '-out', 'leaf-pkcs1.key', '2048']);
  await openssl(dir, [
    'pkcs8',
    '-topk8',
    '-nocrypt',
    '-in',
    'leaf-pkcs1.key',
    '-out',
    'leaf-pkcs8.key',
  ]);
  await openssl(dir, [
    'req',
    '-new',
    '-key',
    'leaf-pkcs1.key',
    '-subj',
    '/CN=127.0.0.1',
    '-out',
    'leaf.csr',
  ]);
  await openssl(dir, [
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'int.crt',
    '-CAkey',
    'int.key',
    '-set_serial',
    '3',
    '-days',
    '1',
    '-extfile',
    'leaf.ext',
    '-out',
    'leaf.crt',
  ]);
  const [root, intermediate, leaf] = await Promise.all(
    ['root.crt', 'int.crt', 'leaf.crt'].map((f) => readFile(join(dir, f), 'utf8')),
  );
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(certFile, `${leaf}${intermediate}`);
  assert.match(
    await readFile(join(dir, 'leaf-pkcs1.key'), 'utf8'),
    /^-----BEGIN RSA PRIVATE KEY-----/,
  );
  await writeFile(keyFile, await readFile(join(dir, 'leaf-pkcs1.key')));
  const { server, port } = await startServer(certFile, keyFile);
  const chain = (): Promise<string[]> =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, ca: root }, () => {
        const names: string[] = [];
        for (
          let c = socket.getPeerCertificate(true);
          c?.fingerprint256 && !names.includes(c.fingerprint256);
          c = c.issuerCertificate
        )
          names.push(c.fingerprint256);
        socket.end();
        resolve(names);
      });
      socket.on('error', reject);
    });
  // Verified against the root alone: the intermediate came from the server.
  assert.deepStrictEqual(await chain(), [
    fingerprint(leaf!),
    fingerprint(intermediate!),
    fingerprint(root!),
  ]);
  await writeFile(keyFile, await readFile(join(dir, 'leaf-pkcs8.key')));
  await server.reloadCertificate();
  assert.deepStrictEqual(
    await chain(),
    [fingerprint(leaf!), fingerprint(intermediate!), fingerprint(root!)],
    'the same key in PKCS#8 serves too',
  );
  assert.strictEqual(await reloads(server, 'failure'), 0);
  await writeFile(certFile, `${intermediate}${leaf}`);
  await expectRejection(loadCertificatePair(certFile, keyFile), {
    message: `the key belongs to certificate 2 of the 2 in ${certFile}, not to the first: put the serving certificate first, then its intermediates`,
  });
});
