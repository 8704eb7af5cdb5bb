import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
} from '../../../src/tls/index.js';

async function setup() {
  const serverCa = await createCertificateAuthority('serving-ca');
  const clientCa = await createCertificateAuthority('client-ca');
  const serving = await issueServingCertificate(serverCa, { hosts: ['127.0.0.1', 'localhost'] });
  const client = await issueClientCertificate(clientCa, { user: 'alice', groups: ['team-a'] });
  const server = createServer(
    {
      cert: serving.certificatePem,
      key: serving.keyPem,
      ca: clientCa.certificatePem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.end(JSON.stringify({ cn: peer.subject.CN, o: peer.subject.O }));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { serverCa, clientCa, serving, client, server, port };
}

it('node https: mutual TLS with the issued serving and client certificates', async () => {
  const { serverCa, client, server, port } = await setup();
  onCleanup(() => server.close());
  for (const host of ['127.0.0.1', 'localhost']) {
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host,
          port,
          path: '/',
          ca: serverCa.certificatePem,
          cert: client.certificatePem,
          key: client.keyPem,
          servername: host === 'localhost' ? host : undefined,
        },
        (res) => {
          let data = '';
          res.on('data', (c: Buffer) => {
            data += c.toString();
          });
          res.on('end', () => resolve(data));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.deepStrictEqual(JSON.parse(body), { cn: 'alice', o: 'team-a' });
  }
  // A client without a certificate is refused by the server.
  await expectRejection(
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/', ca: serverCa.certificatePem },
        resolve,
      );
      req.on('error', reject);
      req.end();
    }),
  );
});

it('openssl s_client verifies the serving certificate chain', async () => {
  const { serverCa, client, server, port } = await setup();
  const dir = await mkdtemp(join(tmpdir(), 'voe-tls-'));
  onCleanup(async () => {
    server.close();
    await rm(dir, { recursive: true, force: true });
  });
  await writeFile(join(dir, 'ca.crt'), serverCa.certificatePem);
  await writeFile(join(dir, 'client.crt'), client.certificatePem);
  await writeFile(join(dir, 'client.key'), client.keyPem, { mode: 0o600 });
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      'openssl',
      [
        's_client',
        '-connect',
        `127.0.0.1:${port}`,
        '-CAfile',
        join(dir, 'ca.crt'),
        '-cert',
        join(dir, 'client.crt'),
        '-key',
        join(dir, 'client.key'),
        '-verify_return_error',
        '-verify_ip',
        '127.0.0.1',
        '-ign_eof',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('error', reject);
    child.on('close', () => resolve(out));
    child.stdin.end('GET / HTTP/1.0\r\n\r\n');
  });
  assert.match(output, /Verify return code: 0 \(ok\)/);
  assert.match(output, /"cn":"alice"/);
});
