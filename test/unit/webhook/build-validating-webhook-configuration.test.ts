import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import {
  buildValidatingWebhookConfiguration,
  IS_ONLINE_EXPAND_SETTING,
  PVC_STORAGE_REQUEST_GROWS,
  settingNamed,
  VM_VOLUME_CLAIM_TEMPLATES_CHANGED,
  WebhookError,
} from '../../../src/webhook/index.js';

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

test('url mode: one webhook per endpoint with url, base64 caBundle, Fail, None, v1, timeout 10', () => {
  const config = buildValidatingWebhookConfiguration({
    name: 'voe-dev',
    urlBase: 'https://127.0.0.1:9443/',
    caBundle: CA_PEM,
  });
  assert.equal(config.metadata?.name, 'voe-dev');
  assert.deepEqual(
    config.webhooks?.map((w) => w.name),
    ['pvc-resize.voe.harvesterhci.io', 'vm.voe.harvesterhci.io', 'setting.voe.harvesterhci.io'],
  );
  assert.deepEqual(
    config.webhooks?.map((w) => w.clientConfig.url),
    [
      'https://127.0.0.1:9443/validate/pvc-resize',
      'https://127.0.0.1:9443/validate/vm',
      'https://127.0.0.1:9443/validate/setting',
    ],
  );
  for (const webhook of config.webhooks ?? []) {
    assert.equal(
      Buffer.from(webhook.clientConfig.caBundle ?? '', 'base64').toString('utf8'),
      CA_PEM,
    );
    assert.equal(webhook.clientConfig.service, undefined);
    assert.equal(webhook.failurePolicy, 'Fail');
    assert.equal(webhook.sideEffects, 'None');
    assert.deepEqual(webhook.admissionReviewVersions, ['v1']);
    assert.equal(webhook.timeoutSeconds, 10);
    assert.equal(webhook.matchConditions?.length, 1);
  }
  const [pvc, vm, setting] = config.webhooks ?? [];
  assert.deepEqual(pvc?.rules, [
    {
      apiGroups: [''],
      apiVersions: ['v1'],
      operations: ['UPDATE'],
      resources: ['persistentvolumeclaims'],
      scope: 'Namespaced',
    },
  ]);
  assert.equal(pvc?.matchConditions?.[0]?.expression, PVC_STORAGE_REQUEST_GROWS);
  assert.deepEqual(vm?.rules?.[0]?.resources, ['virtualmachines']);
  assert.equal(vm?.matchConditions?.[0]?.expression, VM_VOLUME_CLAIM_TEMPLATES_CHANGED);
  assert.deepEqual(setting?.rules?.[0]?.operations, ['CREATE', 'UPDATE']);
  assert.equal(setting?.matchConditions?.[0]?.expression, IS_ONLINE_EXPAND_SETTING);
});

test('service mode, an already-encoded caBundle, a subset of webhooks', () => {
  const config = buildValidatingWebhookConfiguration({
    name: 'voe',
    service: { namespace: 'voe-system', name: 'voe-webhook' },
    caBundle: 'QUJD',
    webhooks: ['pvcResize'],
    timeoutSeconds: 5,
    failurePolicy: 'Ignore',
  });
  assert.equal(config.webhooks?.length, 1);
  assert.deepEqual(config.webhooks?.[0]?.clientConfig, {
    service: {
      namespace: 'voe-system',
      name: 'voe-webhook',
      port: 443,
      path: '/validate/pvc-resize',
    },
    caBundle: 'QUJD',
  });
  assert.equal(config.webhooks?.[0]?.timeoutSeconds, 5);
  assert.equal(config.webhooks?.[0]?.failurePolicy, 'Ignore');
});

test('the CEL guards every field it reads', () => {
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
  assert.doesNotMatch(PVC_STORAGE_REQUEST_GROWS, /isLessThan/);
  assert.match(
    VM_VOLUME_CLAIM_TEMPLATES_CHANGED,
    /has\(object\.metadata\.annotations\) && 'harvesterhci.io\/volumeClaimTemplates' in object\.metadata\.annotations/,
  );
});

test('invalid options are refused', () => {
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
    assert.throws(
      () => buildValidatingWebhookConfiguration(options),
      (e: unknown) => e instanceof WebhookError && e.code === 'WEBHOOK_INVALID_OPTIONS',
    );
  }
});

test('the setting webhook matches the configured Setting name', () => {
  const config = buildValidatingWebhookConfiguration({
    name: 'voe-dev',
    urlBase: 'https://127.0.0.1:9443',
    settingName: 'voe-expand-validation',
  });
  const setting = config.webhooks?.find((w) => w.name === 'setting.voe.harvesterhci.io');
  assert.equal(
    setting?.matchConditions?.[0]?.expression,
    "has(object.metadata.name) && object.metadata.name == 'voe-expand-validation'",
  );
  assert.equal(settingNamed('csi-online-expand-validation'), IS_ONLINE_EXPAND_SETTING);
});

test('manifests/webhook.yaml is what the builder produces for the in-cluster Service', async () => {
  const manifest = parse(
    await readFile(new URL('../../../../manifests/webhook.yaml', import.meta.url), 'utf8'),
  ) as unknown;
  const built = buildValidatingWebhookConfiguration({
    name: 'voe',
    service: { namespace: 'voe-system', name: 'voe-webhook', port: 443 },
    annotations: { 'cert-manager.io/inject-ca-from': 'voe-system/voe-webhook' },
  });
  assert.deepEqual(manifest, JSON.parse(JSON.stringify(built)));
});
