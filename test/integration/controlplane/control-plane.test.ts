import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { eventually } from '../../support/eventually.js';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  VersionApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { KUBERNETES_VERSION } from '../../../src/controlplane/index.js';
import {
  applyValidatingWebhookConfiguration,
  deleteValidatingWebhookConfiguration,
} from '../../../src/webhook/registration/webhook-registration.js';
import { createCertificateAuthority, issueServingCertificate } from '../../../src/tls/index.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const core = cp.kubeConfig.makeApiClient(CoreV1Api);

describe('the control plane', () => {
  it('serves the pinned, version-stamped Kubernetes', async () => {
    const version = await cp.kubeConfig.makeApiClient(VersionApi).getCode();
    assert.strictEqual(version.gitVersion, KUBERNETES_VERSION);
  });

  it('installs the CRDs we read, with status subresources', async () => {
    const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    await core.createNamespace({ body: { metadata: { name: 'vms' } } });
    const vm = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'vm1', namespace: 'vms' },
      spec: {
        runStrategy: 'Always',
        template: {
          spec: { volumes: [{ name: 'disk0', persistentVolumeClaim: { claimName: 'pvc1' } }] },
        },
      },
    };
    await custom.createNamespacedCustomObject({
      group: 'kubevirt.io',
      version: 'v1',
      namespace: 'vms',
      plural: 'virtualmachines',
      body: vm,
    });
    // status is a subresource: a main-resource patch cannot set it, a /status patch can.
    await custom.patchNamespacedCustomObject(
      {
        group: 'kubevirt.io',
        version: 'v1',
        namespace: 'vms',
        plural: 'virtualmachines',
        name: 'vm1',
        body: { status: { printableStatus: 'Running' } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    let got = (await custom.getNamespacedCustomObject({
      group: 'kubevirt.io',
      version: 'v1',
      namespace: 'vms',
      plural: 'virtualmachines',
      name: 'vm1',
    })) as { status?: { printableStatus?: string } };
    assert.isUndefined(got.status?.printableStatus);
    await custom.patchNamespacedCustomObjectStatus(
      {
        group: 'kubevirt.io',
        version: 'v1',
        namespace: 'vms',
        plural: 'virtualmachines',
        name: 'vm1',
        body: { status: { printableStatus: 'Running' } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    got = (await custom.getNamespacedCustomObject({
      group: 'kubevirt.io',
      version: 'v1',
      namespace: 'vms',
      plural: 'virtualmachines',
      name: 'vm1',
    })) as { status?: { printableStatus?: string } };
    assert.strictEqual(got.status?.printableStatus, 'Running');

    // Harvester's Setting keeps value/default at the top level, cluster-scoped.
    await custom.createClusterCustomObject({
      group: 'harvesterhci.io',
      version: 'v1beta1',
      plural: 'settings',
      body: {
        apiVersion: 'harvesterhci.io/v1beta1',
        kind: 'Setting',
        metadata: { name: 'csi-online-expand-validation' },
        default: '{"driver.longhorn.io":true}',
        value: '',
      },
    });
    const setting = (await custom.getClusterCustomObject({
      group: 'harvesterhci.io',
      version: 'v1beta1',
      plural: 'settings',
      name: 'csi-online-expand-validation',
    })) as { default?: string };
    assert.strictEqual(setting.default, '{"driver.longhorn.io":true}');

    for (const [group, version, plural] of [
      ['longhorn.io', 'v1beta2', 'volumes'],
      ['longhorn.io', 'v1beta2', 'engines'],
      ['longhorn.io', 'v1beta2', 'settings'],
      ['kubevirt.io', 'v1', 'kubevirts'],
      ['kubevirt.io', 'v1', 'virtualmachineinstances'],
      ['harvesterhci.io', 'v1beta1', 'addons'],
      ['storage.voe.dev', 'v1alpha1', 'volumeexpansions'],
    ] as const) {
      const list = (await custom.listNamespacedCustomObject({
        group,
        version,
        plural,
        namespace: 'vms',
      })) as { items: unknown[] };
      assert.deepStrictEqual(list.items, [], `${plural}.${group} is served`);
    }
    const cdi = (await custom.listClusterCustomObject({
      group: 'cdi.kubevirt.io',
      version: 'v1beta1',
      plural: 'cdiconfigs',
    })) as { items: unknown[] };
    assert.deepStrictEqual(cdi.items, []);
  });

  it('installs the CRDs as written: fields they preserve are kept, their enums enforced', async () => {
    const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    const lh = {
      group: 'longhorn.io',
      version: 'v1beta2',
      namespace: 'longhorn-system',
      plural: 'volumes',
    };
    await core.createNamespace({ body: { metadata: { name: 'longhorn-system' } } });
    await custom.createNamespacedCustomObject({
      ...lh,
      body: {
        apiVersion: 'longhorn.io/v1beta2',
        kind: 'Volume',
        metadata: { name: 'manual-volume' },
        spec: { dataEngine: 'v2', accessMode: 'rwo', numberOfReplicas: 3 },
      },
    });
    await custom.patchNamespacedCustomObjectStatus(
      {
        ...lh,
        name: 'manual-volume',
        body: { status: { state: 'attached', kubernetesStatus: { pvName: 'manual-pv' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const volume = (await custom.getNamespacedCustomObject({ ...lh, name: 'manual-volume' })) as {
      spec?: Record<string, unknown>;
      status?: { state?: string; kubernetesStatus?: { pvName?: string } };
    };
    // x-kubernetes-preserve-unknown-fields in the manifest: Longhorn's fields beyond the ones listed survive.
    assert.strictEqual(volume.spec?.['accessMode'], 'rwo');
    assert.strictEqual(volume.status?.state, 'attached');
    assert.strictEqual(volume.status?.kubernetesStatus?.pvName, 'manual-pv');
    await expectRejection(
      custom.createNamespacedCustomObject({
        ...lh,
        body: {
          apiVersion: 'longhorn.io/v1beta2',
          kind: 'Volume',
          metadata: { name: 'v3-volume' },
          spec: { dataEngine: 'v3' },
        },
      }),
      (error: unknown) => {
        const { code, body } = error as { code?: number; body?: unknown };
        return (
          code === 422 &&
          /spec\.dataEngine: Unsupported value: "v3"/.test(
            (JSON.parse(String(body)) as { message: string }).message,
          )
        );
      },
    );
  });

  it('enforces RBAC for minted users', async () => {
    const { kubeConfig } = await cp.mintKubeConfig('alice', ['storage-team']);
    const asAlice = kubeConfig.makeApiClient(CoreV1Api);
    await expectRejection(asAlice.listNamespacedConfigMap({ namespace: 'default' }), { code: 403 });
    const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: 'default',
      body: {
        metadata: { name: 'cm-reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'default',
      body: {
        metadata: { name: 'storage-team-cm-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
        subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'storage-team' }],
      },
    });
    const list = await asAlice.listNamespacedConfigMap({ namespace: 'default' });
    assert.ok(Array.isArray(list.items));
  });

  it('the API server calls a local webhook registered with url and caBundle', async () => {
    const ca = await createCertificateAuthority('test-webhook-ca');
    const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
    const server = createServer(
      { cert: serving.certificatePem, key: serving.keyPem },
      (req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => {
          body += c.toString();
        });
        req.on('end', () => {
          const review = JSON.parse(body) as {
            request: { uid: string; object: { metadata: { labels?: Record<string, string> } } };
          };
          const deny = review.request.object.metadata.labels?.deny === 'true';
          res.setHeader('Content-Type', 'application/json');
          res.end(
            JSON.stringify({
              apiVersion: 'admission.k8s.io/v1',
              kind: 'AdmissionReview',
              response: {
                uid: review.request.uid,
                allowed: !deny,
                ...(deny
                  ? {
                      status: {
                        code: 422,
                        reason: 'Invalid',
                        message: 'TEST: denied by the local webhook',
                      },
                    }
                  : {}),
              },
            }),
          );
        });
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onCleanup(() => new Promise<void>((r) => server.close(() => r())));
    const port = (server.address() as AddressInfo).port;
    await applyValidatingWebhookConfiguration(cp.kubeConfig, {
      metadata: { name: 'voe-test-webhook' },
      webhooks: [
        {
          name: 'configmaps.test.voe.dev',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          timeoutSeconds: 5,
          clientConfig: {
            url: `https://127.0.0.1:${port}/validate`,
            caBundle: Buffer.from(ca.certificatePem).toString('base64'),
          },
          rules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['CREATE'],
              resources: ['configmaps'],
            },
          ],
          objectSelector: { matchLabels: { 'voe-test': 'true' } },
        },
      ],
    });
    // The API server picks up new webhook configurations asynchronously: retry until refused.
    let refusal: { code?: number; body?: string } | undefined;
    let attempt = 0;
    await eventually(
      async () => {
        try {
          await core.createNamespacedConfigMap({
            namespace: 'default',
            body: {
              metadata: {
                name: `denied-${attempt++}`,
                labels: { 'voe-test': 'true', deny: 'true' },
              },
            },
          });
          return false;
        } catch (error) {
          refusal = error as { code?: number; body?: string };
          return true;
        }
      },
      30_000,
      'the webhook to refuse a marked ConfigMap',
    );
    assert.ok(refusal, 'the webhook refused the marked ConfigMap');
    assert.strictEqual(refusal.code, 422);
    assert.match(String(refusal.body), /TEST: denied by the local webhook/);
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'allowed', labels: { 'voe-test': 'true' } } },
    });
    await deleteValidatingWebhookConfiguration(cp.kubeConfig, 'voe-test-webhook');
    await deleteValidatingWebhookConfiguration(cp.kubeConfig, 'voe-test-webhook');
  });

  it('survives a kube-apiserver restart on the same etcd', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'before-restart' }, data: { a: '1' } },
    });
    await cp.stopApiServer();
    await expectRejection(
      core.readNamespacedConfigMap({ namespace: 'default', name: 'before-restart' }),
    );
    await cp.startApiServer();
    const cm = await core.readNamespacedConfigMap({ namespace: 'default', name: 'before-restart' });
    assert.strictEqual(cm.data?.a, '1');
  });
});
