/**
 * ensureWebhookCertificates and `voe certs ensure` through a real kube-apiserver: Secrets created,
 * kept, renewed before expiry; a CA replaced before expiry stays in the caBundle (and the serving
 * Secret's ca.crt) while it is valid, and leaves once expired; unusable or mismatched contents
 * are replaced; a concurrent change fails the write instead of being overwritten.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { X509Certificate } from 'node:crypto';
import { AdmissionregistrationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { ensureWebhookCertificates, kubeCertificateStore } from '../../../src/tls/index.js';
import {
  CA_SECRET_KEYS,
  TLS_SECRET_KEYS,
  type EnsureWebhookCertificatesOptions,
} from '../../../src/tls/ensure-webhook-certificates.js';
import { buildValidatingWebhookConfiguration } from '../../../src/webhook/registration/build-validating-webhook-configuration.js';
import { ensureNamespaces, useChartControlPlane } from '../../support/charts/cluster.js';
import { expectRejection } from '../../support/expect-error.js';
import { runVoe } from '../../support/run-voe.js';

const DAY = 24 * 3600 * 1000;

/** The certificates of a PEM bundle, in order. */
function certificatesOf(bundle: string): X509Certificate[] {
  return (
    bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? []
  ).map((pem) => new X509Certificate(pem));
}

describe('self-managed webhook certificates (ensureWebhookCertificates, voe certs ensure)', function () {
  this.timeout(10 * 60_000);
  const cp = useChartControlPlane();
  let run = 0;

  before(async () => {
    await ensureNamespaces(cp.current.kubeConfig, [
      'certs-a',
      'certs-b',
      'certs-c',
      'certs-d',
      'certs-cli',
    ]);
  });

  /** Options for namespace `namespace`, with a webhook configuration of its own registered (named after it). */
  async function setUp(namespace: string): Promise<EnsureWebhookCertificatesOptions> {
    const name = `voe-${namespace}-${++run}`;
    await cp.current.kubeConfig
      .makeApiClient(AdmissionregistrationV1Api)
      .createValidatingWebhookConfiguration({
        // Ignore: nothing in this file resizes, and the Service it names answers nowhere.
        body: buildValidatingWebhookConfiguration({
          name,
          service: { namespace, name: 'voe-webhook' },
          failurePolicy: 'Ignore',
        }),
      });
    return {
      store: kubeCertificateStore(cp.current.kubeConfig, namespace),
      namespace,
      serviceName: 'voe-webhook',
      caSecretName: 'voe-webhook-ca',
      tlsSecretName: 'voe-webhook-tls',
      webhookConfigurations: [name, `${name}-not-there`],
    };
  }

  const secret = async (namespace: string, name: string) => {
    const read = await cp.current.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ namespace, name });
    const data = Object.fromEntries(
      Object.entries(read.data ?? {}).map(([k, v]) => [
        k,
        Buffer.from(v, 'base64').toString('utf8'),
      ]),
    );
    return {
      data,
      resourceVersion: read.metadata!.resourceVersion!,
      type: read.type,
      labels: read.metadata!.labels,
    };
  };
  const caBundles = async (name: string): Promise<string[]> =>
    (
      (
        await cp.current.kubeConfig
          .makeApiClient(AdmissionregistrationV1Api)
          .readValidatingWebhookConfiguration({ name })
      ).webhooks ?? []
    ).map((w) => Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8'));

  it('creates both Secrets and sets every caBundle; a second run changes nothing', async () => {
    const options = await setUp('certs-a');
    const first = await ensureWebhookCertificates(options);
    assert.strictEqual(first.ca.action, 'created');
    assert.strictEqual(first.serving.action, 'created');
    assert.strictEqual(first.bundleCertificates, 1);
    assert.deepStrictEqual(first.webhookConfigurations, [
      { name: options.webhookConfigurations[0]!, caBundle: 'updated' },
      { name: options.webhookConfigurations[1]!, caBundle: 'absent' },
    ]);
    const ca = await secret('certs-a', 'voe-webhook-ca');
    const tls = await secret('certs-a', 'voe-webhook-tls');
    assert.strictEqual(ca.type, 'Opaque');
    assert.strictEqual(tls.type, 'kubernetes.io/tls');
    assert.strictEqual(tls.labels?.['app.kubernetes.io/managed-by'], 'voe-certs');
    assert.sameMembers(Object.keys(ca.data), [CA_SECRET_KEYS.certificate, CA_SECRET_KEYS.key]);
    assert.sameMembers(Object.keys(tls.data), Object.values(TLS_SECRET_KEYS));
    const serving = new X509Certificate(tls.data['tls.crt']!);
    assert.isTrue(serving.checkIssued(new X509Certificate(ca.data['ca.crt']!)));
    assert.strictEqual(
      serving.subjectAltName,
      'DNS:voe-webhook, DNS:voe-webhook.certs-a, DNS:voe-webhook.certs-a.svc, DNS:voe-webhook.certs-a.svc.cluster.local',
    );
    assert.deepStrictEqual(await caBundles(options.webhookConfigurations[0]!), [
      ca.data['ca.crt'],
      ca.data['ca.crt'],
      ca.data['ca.crt'],
    ]);

    const second = await ensureWebhookCertificates(options);
    assert.strictEqual(second.ca.action, 'kept');
    assert.strictEqual(second.serving.action, 'kept');
    assert.strictEqual(second.webhookConfigurations[0]!.caBundle, 'in-sync');
    assert.strictEqual(
      (await secret('certs-a', 'voe-webhook-ca')).resourceVersion,
      ca.resourceVersion,
    );
    assert.strictEqual(
      (await secret('certs-a', 'voe-webhook-tls')).resourceVersion,
      tls.resourceVersion,
    );
  });

  it('a CA with renewBeforeDays left is replaced: the bundle holds the new and the old CA while the old is valid, the serving certificate is issued by the new one; once the old CA has expired the bundle holds the new one alone', async () => {
    const options = await setUp('certs-b');
    await ensureWebhookCertificates({
      ...options,
      caValidityDays: 100,
      certificateValidityDays: 60,
      renewBeforeDays: 10,
    });
    const oldCa = new X509Certificate((await secret('certs-b', 'voe-webhook-ca')).data['ca.crt']!);
    const soon = new Date(new Date(oldCa.validTo).getTime() - 5 * DAY);
    const rotated = await ensureWebhookCertificates({
      ...options,
      caValidityDays: 100,
      certificateValidityDays: 60,
      renewBeforeDays: 10,
      now: () => soon,
    });
    assert.strictEqual(rotated.ca.action, 'replaced');
    assert.match(rotated.ca.why ?? '', /within 10 days/);
    assert.strictEqual(rotated.serving.action, 'replaced');
    assert.strictEqual(rotated.serving.why, 'it is not signed by the current CA');
    assert.strictEqual(rotated.bundleCertificates, 2);
    assert.strictEqual(rotated.webhookConfigurations[0]!.caBundle, 'updated');
    const ca = (await secret('certs-b', 'voe-webhook-ca')).data;
    assert.strictEqual(
      new X509Certificate(ca[CA_SECRET_KEYS.previous]!).serialNumber,
      oldCa.serialNumber,
    );
    const [bundle] = await caBundles(options.webhookConfigurations[0]!);
    assert.deepStrictEqual(
      certificatesOf(bundle!).map((c) => c.serialNumber),
      [new X509Certificate(ca['ca.crt']!).serialNumber, oldCa.serialNumber],
    );
    const tls = (await secret('certs-b', 'voe-webhook-tls')).data;
    assert.strictEqual(tls['ca.crt'], bundle);
    assert.isTrue(
      new X509Certificate(tls['tls.crt']!).checkIssued(new X509Certificate(ca['ca.crt']!)),
    );

    // After the old CA's expiry: dropped from the bundle and from ca.crt beside the serving certificate, which stays.
    const later = new Date(new Date(oldCa.validTo).getTime() + DAY);
    const pruned = await ensureWebhookCertificates({
      ...options,
      caValidityDays: 100,
      certificateValidityDays: 60,
      renewBeforeDays: 10,
      now: () => later,
    });
    assert.strictEqual(pruned.ca.action, 'kept');
    assert.strictEqual(pruned.serving.action, 'kept');
    assert.strictEqual(pruned.bundleCertificates, 1);
    assert.strictEqual(pruned.webhookConfigurations[0]!.caBundle, 'updated');
    assert.deepStrictEqual(await caBundles(options.webhookConfigurations[0]!), [
      ca['ca.crt'],
      ca['ca.crt'],
      ca['ca.crt'],
    ]);
    const after = (await secret('certs-b', 'voe-webhook-tls')).data;
    assert.strictEqual(after['tls.crt'], tls['tls.crt']);
    assert.strictEqual(after['ca.crt'], ca['ca.crt']);
  });

  it('unusable contents are replaced and say why: a CA that is not PEM, a serving key of another certificate, a certificate for another Service', async () => {
    const options = await setUp('certs-c');
    await ensureWebhookCertificates(options);
    const core = cp.current.kubeConfig.makeApiClient(CoreV1Api);
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const tls = await secret('certs-c', 'voe-webhook-tls');
    const ca = await secret('certs-c', 'voe-webhook-ca');
    await core.patchNamespacedSecret({
      namespace: 'certs-c',
      name: 'voe-webhook-tls',
      body: [{ op: 'replace', path: '/data/tls.key', value: b64(ca.data['ca.key']!) }],
    });
    const wrongKey = await ensureWebhookCertificates(options);
    assert.strictEqual(wrongKey.ca.action, 'kept');
    assert.strictEqual(wrongKey.serving.action, 'replaced');
    assert.strictEqual(wrongKey.serving.why, 'tls.key is not the key of tls.crt');
    assert.notStrictEqual(
      (await secret('certs-c', 'voe-webhook-tls')).data['tls.crt'],
      tls.data['tls.crt'],
    );

    const renamed = await ensureWebhookCertificates({ ...options, serviceName: 'voe-admission' });
    assert.strictEqual(renamed.serving.action, 'replaced');
    assert.match(
      renamed.serving.why ?? '',
      /^it does not name voe-admission, voe-admission\.certs-c,/,
    );

    await core.patchNamespacedSecret({
      namespace: 'certs-c',
      name: 'voe-webhook-ca',
      body: [{ op: 'replace', path: '/data/ca.crt', value: b64('garbage') }],
    });
    const garbage = await ensureWebhookCertificates(options);
    assert.strictEqual(garbage.ca.action, 'replaced');
    assert.strictEqual(garbage.ca.why, 'ca.crt is not a PEM certificate');
    assert.strictEqual(garbage.serving.action, 'replaced');
    assert.strictEqual(garbage.bundleCertificates, 1);
  });

  it('a write that lost a race fails with TLS_CERTIFICATES_CONFLICT instead of overwriting; bad options fail with TLS_INVALID_OPTIONS', async () => {
    const options = await setUp('certs-d');
    await ensureWebhookCertificates(options);
    const stale = await options.store.readSecret('voe-webhook-tls');
    await ensureWebhookCertificates({ ...options, serviceName: 'voe-other' }); // replaces it meanwhile
    await expectRejection(
      options.store.writeSecret(
        'voe-webhook-tls',
        { type: 'kubernetes.io/tls', data: stale!.data },
        stale,
      ),
      { code: 'TLS_CERTIFICATES_CONFLICT' },
    );
    await expectRejection(
      options.store.writeSecret(
        'voe-webhook-tls',
        { type: 'kubernetes.io/tls', data: stale!.data },
        undefined,
      ),
      { code: 'TLS_CERTIFICATES_CONFLICT' },
    );
    const configuration = await options.store.readWebhookConfiguration(
      options.webhookConfigurations[0]!,
    );
    await ensureWebhookCertificates({ ...options, caSecretName: 'another-ca' }); // a new CA: the caBundle changes
    await expectRejection(
      options.store.writeCaBundle(options.webhookConfigurations[0]!, 'AAAA', configuration!),
      {
        code: 'TLS_CERTIFICATES_CONFLICT',
      },
    );
    await expectRejection(ensureWebhookCertificates({ ...options, renewBeforeDays: 365 }), {
      code: 'TLS_INVALID_OPTIONS',
      message: /renewBeforeDays \(365\) must be shorter/,
    });
    await expectRejection(ensureWebhookCertificates({ ...options, caValidityDays: 0 }), {
      code: 'TLS_INVALID_OPTIONS',
    });
  });

  describe('voe certs ensure', () => {
    after(async () => {
      await cp.current.kubeConfig
        .makeApiClient(AdmissionregistrationV1Api)
        .deleteValidatingWebhookConfiguration({ name: 'voe-cli' })
        .catch(() => undefined);
    });

    it('prints what it did (--json), exits 0; a usage error exits 2 before any call', async () => {
      await cp.current.kubeConfig
        .makeApiClient(AdmissionregistrationV1Api)
        .createValidatingWebhookConfiguration({
          body: buildValidatingWebhookConfiguration({
            name: 'voe-cli',
            service: { namespace: 'certs-cli', name: 'voe-webhook' },
            failurePolicy: 'Ignore',
          }),
        });
      const args = [
        'certs',
        'ensure',
        '--namespace',
        'certs-cli',
        '--webhook-configuration',
        'voe-cli',
        '--kubeconfig',
        cp.current.kubeconfigPath,
      ];
      const result = await runVoe([...args, '--json']);
      assert.strictEqual(result.code, 0, result.stderr);
      const report = JSON.parse(result.stdout) as {
        ca: { action: string };
        serving: { action: string; hosts: string[] };
        webhookConfigurations: unknown;
      };
      assert.strictEqual(report.ca.action, 'created');
      assert.strictEqual(report.serving.action, 'created');
      assert.include(report.serving.hosts, 'voe-webhook.certs-cli.svc');
      assert.deepStrictEqual(report.webhookConfigurations, [
        { name: 'voe-cli', caBundle: 'updated' },
      ]);
      const text = await runVoe(args);
      assert.strictEqual(text.code, 0, text.stderr);
      assert.match(
        text.stdout,
        /^CA: kept, valid until \S+\nserving certificate: kept, valid until \S+, for voe-webhook, /,
      );
      assert.notInclude(text.stdout + text.stderr, 'PRIVATE KEY');

      for (const [bad, message] of [
        [
          ['--namespace', 'Not_A_Namespace'],
          /--namespace "Not_A_Namespace" is not a namespace name/,
        ],
        [
          ['--namespace', 'x', '--ca-secret', 'same', '--tls-secret', 'same'],
          /two different Secrets/,
        ],
        [['--namespace', 'x', '--renew-before-days', '0'], /must be a whole number of days/],
      ] as const) {
        const refused = await runVoe([
          'certs',
          'ensure',
          ...bad,
          '--kubeconfig',
          cp.current.kubeconfigPath,
        ]);
        assert.strictEqual(refused.code, 2, refused.stderr);
        assert.match(refused.stderr, message);
      }
    });
  });
});
