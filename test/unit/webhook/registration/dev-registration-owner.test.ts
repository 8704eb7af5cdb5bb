import { it } from 'mocha';
import { assert } from 'chai';
import { buildValidatingWebhookConfiguration } from '../../../../src/webhook/registration/build-validating-webhook-configuration.js';
import {
  DEV_OWNER_ANNOTATION,
  devOwnerAnnotations,
  ownerCaBundle,
  readDevOwner,
  type DevOwner,
} from '../../../../src/webhook/registration/dev-registration-owner.js';

const owner: DevOwner = {
  host: 'laptop',
  pid: 4242,
  id: '0123456789abcdef',
  url: 'https://127.0.0.1:40001',
};
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

it('the owner annotation of a registered configuration reads back as the instance; no annotation is not a dev registration', () => {
  const marked = buildValidatingWebhookConfiguration({
    name: 'voe-dev',
    urlBase: owner.url,
    caBundle: PEM,
    annotations: devOwnerAnnotations(owner),
  });
  assert.deepStrictEqual(readDevOwner(marked), owner);
  assert.strictEqual(ownerCaBundle(marked, owner.url), Buffer.from(PEM).toString('base64'));
  assert.isUndefined(
    ownerCaBundle(marked, 'https://127.0.0.1:40002'),
    'only the webhooks called under the owner url',
  );
  const inCluster = buildValidatingWebhookConfiguration({
    name: 'voe',
    service: { namespace: 'voe-system', name: 'voe-webhook' },
  });
  assert.isUndefined(readDevOwner(inCluster));
});

it('an owner annotation that is not what voe serve --dev writes is unreadable', () => {
  for (const value of [
    '',
    'pid 1',
    '[]',
    'null',
    '{"host":"h","pid":"1","id":"x","url":"https://a"}',
    '{"host":"h","pid":1,"id":"x","url":"http://a"}',
    '{"host":"h","pid":1,"url":"https://a"}',
  ]) {
    assert.strictEqual(
      readDevOwner({
        metadata: { name: 'voe-dev', annotations: { [DEV_OWNER_ANNOTATION]: value } },
      }),
      'unreadable',
      value,
    );
  }
});
