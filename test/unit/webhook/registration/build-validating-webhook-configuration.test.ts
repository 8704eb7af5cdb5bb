import { it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../../support/expect-error.js';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import {
  buildValidatingWebhookConfiguration,
  IS_ONLINE_EXPAND_SETTING,
  PVC_STORAGE_REQUEST_GROWS,
  settingNamed,
  VM_VOLUME_CLAIM_TEMPLATES_CHANGED,
  WEBHOOK_OPT_OUT_LABEL,
  webhookNamespaceSelector,
} from '../../../../src/webhook/registration/build-validating-webhook-configuration.js';
import { WebhookError } from '../../../../src/webhook/webhook-error.js';

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

it('url mode: one webhook per endpoint with url, base64 caBundle, Fail, None, v1, timeout 10', () => {
  const config = buildValidatingWebhookConfiguration({
    name: 'voe-dev',
    urlBase: 'https://127.0.0.1:9443/',
    caBundle: CA_PEM,
  });
  assert.strictEqual(config.metadata?.name, 'voe-dev');
  assert.deepStrictEqual(
    config.webhooks?.map((w) => w.name),
    ['pvc-resize.voe.harvesterhci.io', 'vm.voe.harvesterhci.io', 'setting.voe.harvesterhci.io'],
  );
  assert.deepStrictEqual(
    config.webhooks?.map((w) => w.clientConfig.url),
    [
      'https://127.0.0.1:9443/validate/pvc-resize',
      'https://127.0.0.1:9443/validate/vm',
      'https://127.0.0.1:9443/validate/setting',
    ],
  );
  for (const webhook of config.webhooks ?? []) {
    assert.strictEqual(
      Buffer.from(webhook.clientConfig.caBundle ?? '', 'base64').toString('utf8'),
      CA_PEM,
    );
    assert.isUndefined(webhook.clientConfig.service);
    assert.strictEqual(webhook.failurePolicy, 'Fail');
    assert.strictEqual(webhook.sideEffects, 'None');
    assert.deepStrictEqual(webhook.admissionReviewVersions, ['v1']);
    assert.strictEqual(webhook.timeoutSeconds, 10);
    assert.strictEqual(webhook.matchConditions?.length, 1);
  }
  const [pvc, vm, setting] = config.webhooks ?? [];
  assert.deepStrictEqual(pvc?.rules, [
    {
      apiGroups: [''],
      apiVersions: ['v1'],
      operations: ['UPDATE'],
      resources: ['persistentvolumeclaims'],
      scope: 'Namespaced',
    },
  ]);
  assert.strictEqual(pvc?.matchConditions?.[0]?.expression, PVC_STORAGE_REQUEST_GROWS);
  assert.deepStrictEqual(vm?.rules?.[0]?.resources, ['virtualmachines']);
  assert.strictEqual(vm?.matchConditions?.[0]?.expression, VM_VOLUME_CLAIM_TEMPLATES_CHANGED);
  assert.deepStrictEqual(setting?.rules?.[0]?.operations, ['CREATE', 'UPDATE']);
  assert.strictEqual(setting?.matchConditions?.[0]?.expression, IS_ONLINE_EXPAND_SETTING);
});

it('service mode, an already-encoded caBundle, a subset of webhooks', () => {
  const config = buildValidatingWebhookConfiguration({
    name: 'voe',
    service: { namespace: 'voe-system', name: 'voe-webhook' },
    caBundle: 'QUJD',
    webhooks: ['pvcResize'],
    timeoutSeconds: 5,
    failurePolicy: 'Ignore',
  });
  assert.strictEqual(config.webhooks?.length, 1);
  assert.deepStrictEqual(config.webhooks?.[0]?.clientConfig, {
    service: {
      namespace: 'voe-system',
      name: 'voe-webhook',
      port: 443,
      path: '/validate/pvc-resize',
    },
    caBundle: 'QUJD',
  });
  assert.strictEqual(config.webhooks?.[0]?.timeoutSeconds, 5);
  assert.strictEqual(config.webhooks?.[0]?.failurePolicy, 'Ignore');
});

it('the CEL guards every field it reads', () => {
  // A missing key in a dynamically typed object is an error, and an error makes a Fail webhook refuse.
  for (const field of [
    'object.spec.resources',
    'object.spec.resources.requests',
    'object.spec.resources.requests.storage',
    'oldObject.spec.resources',
    'oldObject.spec.resources.requests',
    'oldObject.spec.resources.requests.storage',
  ]) {
    assert.ok(PVC_STORAGE_REQUEST_GROWS.includes(`has(${field})`), field);
  }
  assert.match(
    PVC_STORAGE_REQUEST_GROWS,
    /isQuantity\(string\(object\.spec\.resources\.requests\.storage\)\)/,
  );
  assert.match(
    PVC_STORAGE_REQUEST_GROWS,
    /quantity\(string\(object\.spec\.resources\.requests\.storage\)\)\.isGreaterThan\(quantity\(string\(oldObject/,
  );
  // A smaller request (a recovery from a failed expansion) asks for no more than is pending: not sent.
  assert.notMatch(PVC_STORAGE_REQUEST_GROWS, /isLessThan/);
  assert.match(
    VM_VOLUME_CLAIM_TEMPLATES_CHANGED,
    /has\(object\.metadata\.annotations\) && 'harvesterhci.io\/volumeClaimTemplates' in object\.metadata\.annotations/,
  );
});

it('invalid options are refused', () => {
  const invalid = [
    { name: 'x' },
    { name: 'x', urlBase: 'https://a', service: { namespace: 'n', name: 's' } },
    { name: 'x', urlBase: 'http://127.0.0.1:9443' },
    { name: 'x', urlBase: 'https://a', timeoutSeconds: 31 },
    { name: 'x', urlBase: 'https://a', settingName: "x' || true || '" },
    { name: 'x', urlBase: 'https://a', settingName: 'Upper-Case' },
    { name: 'x', urlBase: 'https://a', settingName: '' },
  ];
  for (const options of invalid) {
    expectThrow(
      () => buildValidatingWebhookConfiguration(options),
      (e: unknown) => e instanceof WebhookError && e.code === 'WEBHOOK_INVALID_OPTIONS',
    );
  }
});

it('the setting webhook matches the configured Setting name', () => {
  const config = buildValidatingWebhookConfiguration({
    name: 'voe-dev',
    urlBase: 'https://127.0.0.1:9443',
    settingName: 'voe-expand-validation',
  });
  const setting = config.webhooks?.find((w) => w.name === 'setting.voe.harvesterhci.io');
  assert.strictEqual(
    setting?.matchConditions?.[0]?.expression,
    "has(object.metadata.name) && object.metadata.name == 'voe-expand-validation'",
  );
  assert.strictEqual(settingNamed('csi-online-expand-validation'), IS_ONLINE_EXPAND_SETTING);
});

it('manifests/webhook.yaml is what the builder produces for the in-cluster Service', async () => {
  const manifest = parse(
    await readFile(new URL('../../../../../manifests/webhook.yaml', import.meta.url), 'utf8'),
  ) as unknown;
  const built = buildValidatingWebhookConfiguration({
    name: 'voe',
    service: { namespace: 'voe-system', name: 'voe-webhook', port: 443 },
    annotations: { 'cert-manager.io/inject-ca-from': 'voe-system/voe-webhook' },
  });
  assert.deepStrictEqual(manifest, JSON.parse(JSON.stringify(built)));
});

it('namespaceSelector: the PVC and VM webhooks never see kube-system, the Service namespace, the excluded ones or opted-out namespaces; the cluster-scoped Setting webhook has none', () => {
  const config = buildValidatingWebhookConfiguration({
    name: 'voe',
    service: { namespace: 'voe-system', name: 'voe-webhook' },
    excludedNamespaces: ['vm-templates', 'kube-system'],
  });
  const [pvc, vm, setting] = config.webhooks ?? [];
  const expected = {
    matchExpressions: [
      {
        key: 'kubernetes.io/metadata.name',
        operator: 'NotIn',
        values: ['kube-system', 'voe-system', 'vm-templates'],
      },
      { key: WEBHOOK_OPT_OUT_LABEL, operator: 'NotIn', values: ['disabled'] },
    ],
  };
  assert.deepStrictEqual(pvc?.namespaceSelector, expected);
  assert.deepStrictEqual(vm?.namespaceSelector, expected);
  assert.isUndefined(setting?.namespaceSelector);
  assert.deepStrictEqual(webhookNamespaceSelector(undefined).matchExpressions?.[0]?.values, [
    'kube-system',
  ]);
});
