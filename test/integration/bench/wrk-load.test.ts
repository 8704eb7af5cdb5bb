import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareWrkLoad } from '../../../bench/support/wrk-load.js';
import { createCertificateAuthority, issueServingCertificate } from '../../../src/tls/index.js';

test('the real wrk POSTs every body in turn to the path, as JSON, and its results are read', async () => {
  const ca = await createCertificateAuthority('voe-wrk-test-ca');
  const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
  const seen: Array<{ method: string; url: string; type: string; body: string }> = [];
  const server = createServer({ cert: serving.certificatePem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        type: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks).toString(),
      });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = await mkdtemp(join(tmpdir(), 'voe-wrk-test-'));
  try {
    const bodies = ['{"n":1}', '{"n":2,"text":"two"}', '{"n":3}'];
    const load = await prepareWrkLoad(dir, '/validate/pvc-resize', bodies);
    const result = await load.run((server.address() as AddressInfo).port, {
      connections: 1,
      durationS: 1,
    });
    assert.ok(seen.length >= 3, `wrk sent ${seen.length} requests in 1 s`);
    // wrk counts the answers it read; the request in flight on its connection when it stopped is not one.
    assert.ok(
      result.requests === seen.length || result.requests === seen.length - 1,
      `wrk counted ${result.requests} answers, the server saw ${seen.length} requests`,
    );
    assert.equal(result.non2xx, 0);
    assert.equal(result.socketErrors, 0);
    assert.ok(result.requestsPerSecond > 0 && result.p50Ms > 0 && result.p99Ms >= result.p50Ms);
    // One connection: the bodies in turn (wrk asks the script for one request before it connects, so
    // the first one sent need not be the first body).
    const first = bodies.indexOf(seen[0]!.body);
    assert.ok(first >= 0);
    seen.forEach((request, i) => {
      assert.deepEqual(request, {
        method: 'POST',
        url: '/validate/pvc-resize',
        type: 'application/json',
        body: bodies[(first + i) % bodies.length],
      });
    });
  } finally {
    server.closeAllConnections();
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
