import { it } from 'mocha';
import { assert } from 'chai';
import { buildValidatingWebhookConfiguration } from '../../../../src/webhook/registration/build-validating-webhook-configuration.js';
import { registrationChanges } from '../../../../src/webhook/registration/registration-changes.js';

const registered = buildValidatingWebhookConfiguration({
  name: 'voe-dev',
  urlBase: 'https://127.0.0.1:9443',
  caBundle: 'Q0E=',
}).webhooks!;

it('registrationChanges: nothing changed, nothing said', () => {
  assert.deepStrictEqual(registrationChanges(registered, structuredClone(registered)), []);
});

it('registrationChanges names each change by webhook: scalars with their values, structures and the caBundle only as changed', () => {
  const edited = structuredClone(registered);
  edited[0]!.failurePolicy = 'Ignore';
  edited[0]!.timeoutSeconds = 30;
  edited[1]!.clientConfig.url = 'https://127.0.0.1:9444/validate/vm';
  edited[1]!.clientConfig.caBundle = 'b3RoZXI=';
  edited[2]!.matchConditions = [];
  edited[2]!.namespaceSelector = { matchLabels: { a: 'b' } };
  assert.deepStrictEqual(registrationChanges(registered, edited), [
    'pvc-resize.voe.harvesterhci.io: failurePolicy Fail -> Ignore',
    'pvc-resize.voe.harvesterhci.io: timeoutSeconds 10 -> 30',
    'vm.voe.harvesterhci.io: url https://127.0.0.1:9443/validate/vm -> https://127.0.0.1:9444/validate/vm',
    'vm.voe.harvesterhci.io: caBundle changed',
    'setting.voe.harvesterhci.io: matchConditions changed',
    'setting.voe.harvesterhci.io: namespaceSelector changed',
  ]);
});

it('registrationChanges: a webhook removed or added', () => {
  const other = { ...structuredClone(registered[0]!), name: 'other.example.com' };
  assert.deepStrictEqual(registrationChanges(registered, [registered[0]!, registered[2]!, other]), [
    'vm.voe.harvesterhci.io: removed',
    'other.example.com: added',
  ]);
});
