/**
 * `voe serve --dev` renews its serving certificate while it runs: a new one from the same dev CA
 * is written over tls.crt/tls.key, served to new connections, and trusted by the caBundle the
 * API server was given at registration, which does not change.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:tls';
import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import { SCENARIO, stageExpansionScenario } from '../../../src/demo/expansion-scenario.js';
import { StagedCluster } from '../../../src/demo/staged-cluster.js';
import { captureLogger } from '../../support/capture-logger.js';
import { eventually } from '../../support/eventually.js';
import { resizeThroughApi } from '../../support/webhook/resize-through-api.js';
import { serveAdmission } from '../../support/webhook/serve-admission.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
await stageExpansionScenario(cluster);

/** The certificate a new TLS connection is served, verified against `caPem` (as the API server verifies it against the caBundle). */
function servedFingerprint(port: number, caPem: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost' }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.once('error', reject);
  });
}

describe('voe serve --dev certificate renewal', () => {
  it('voe serve --dev renews its serving certificate from the same CA: new connections get the new one, the registered caBundle still trusts it, and the API server keeps calling the webhook', async () => {
    const capture = captureLogger('info');
    const { serving } = await serveAdmission(
      cp.kubeConfig,
      'voe-renewal-test',
      {},
      { logger: capture.logger, devCertificateRenewMs: 2_000 },
    );
    const caPem = await readFile(`${serving.certDir!}/ca.crt`, 'utf8');
    const configuration = await cp.kubeConfig
      .makeApiClient(AdmissionregistrationV1Api)
      .readValidatingWebhookConfiguration({ name: 'voe-renewal-test' });
    const bundles = new Set(
      (configuration.webhooks ?? []).map((webhook) =>
        Buffer.from(webhook.clientConfig.caBundle ?? '', 'base64').toString('utf8'),
      ),
    );
    assert.deepStrictEqual([...bundles], [caPem], 'every webhook trusts the dev CA');
    const port = serving.address.port;
    const before = await servedFingerprint(port, caPem);
    const firstFile = await readFile(`${serving.certDir!}/tls.crt`, 'utf8');

    await eventually(
      () => capture.lines().some((l) => l['msg'] === 'dev serving certificate renewed'),
      30_000,
      'a renewal',
    );
    await eventually(
      async () => (await servedFingerprint(port, caPem)) !== before,
      30_000,
      'new connections served the renewed certificate',
    );
    assert.notStrictEqual(await readFile(`${serving.certDir!}/tls.crt`, 'utf8'), firstFile);
    assert.strictEqual(await readFile(`${serving.certDir!}/ca.crt`, 'utf8'), caPem, 'the same CA');
    const after = await cp.kubeConfig
      .makeApiClient(AdmissionregistrationV1Api)
      .readValidatingWebhookConfiguration({ name: 'voe-renewal-test' });
    assert.strictEqual(
      after.metadata?.resourceVersion,
      configuration.metadata?.resourceVersion,
      'the registration was not touched',
    );
    assert.strictEqual(
      capture
        .lines()
        .filter((l) => /serving certificate/.test(String(l['msg'])) && (l['level'] as number) >= 40)
        .length,
      0,
      `no warning about the certificate: ${capture.text()}`,
    );

    // The webhook still decides the API server's requests: a growth refused with its message.
    const refused = await resizeThroughApi(cluster, SCENARIO.nfsDisk, '20Gi');
    assert.strictEqual(refused?.code, 422);
    assert.match(refused?.message ?? '', /denied the request: PVC_EXPAND: /);
    await serving.stop();
  });
});
