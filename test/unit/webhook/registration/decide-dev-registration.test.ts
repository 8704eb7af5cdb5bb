import { it } from 'mocha';
import { assert } from 'chai';
import { decideDevRegistration } from '../../../../src/webhook/registration/decide-dev-registration.js';
import type { DevOwner } from '../../../../src/webhook/registration/dev-registration-owner.js';
import { WebhookError } from '../../../../src/webhook/webhook-error.js';

const owner: DevOwner = {
  host: 'laptop',
  pid: 4242,
  id: '0123456789abcdef',
  url: 'https://127.0.0.1:40001',
};

it('decideDevRegistration: only a voe serve --dev registration whose instance no longer answers is replaced', () => {
  const cases: Array<[string, DevOwner | 'unreadable' | undefined, boolean, string, RegExp]> = [
    [
      'not marked (in-cluster manifest, someone else)',
      undefined,
      false,
      'WEBHOOK_CONFIGURATION_NOT_OURS',
      /^ValidatingWebhookConfiguration voe exists and was not registered by voe serve --dev \(no voe\.harvesterhci\.io\/serve-dev annotation\): .*Nothing was changed\. Pass another --webhook-configuration-name/,
    ],
    [
      'not marked, even if something answers',
      undefined,
      true,
      'WEBHOOK_CONFIGURATION_NOT_OURS',
      /not registered by voe serve --dev/,
    ],
    [
      'marked but unreadable',
      'unreadable',
      false,
      'WEBHOOK_CONFIGURATION_NOT_OURS',
      /^ValidatingWebhookConfiguration voe carries a voe\.harvesterhci\.io\/serve-dev annotation that does not say which instance .*kubectl delete validatingwebhookconfiguration voe/,
    ],
    [
      'another live instance',
      owner,
      true,
      'WEBHOOK_CONFIGURATION_IN_USE',
      /^ValidatingWebhookConfiguration voe is registered by another voe serve --dev \(pid 4242 on host laptop, https:\/\/127\.0\.0\.1:40001, id 0123456789abcdef\), which still answers\. Nothing was changed\. Stop that one first, or pass --webhook-configuration-name/,
    ],
  ];
  for (const [what, existingOwner, answers, code, message] of cases) {
    const decision = decideDevRegistration('voe', existingOwner, answers);
    assert.strictEqual(decision.action, 'refuse', what);
    if (decision.action !== 'refuse') continue;
    assert.ok(decision.error instanceof WebhookError, what);
    assert.strictEqual(decision.error.code, code, what);
    assert.match(decision.error.message, message, what);
  }
  assert.deepStrictEqual(decideDevRegistration('voe-dev', owner, false), {
    action: 'replace',
    warning:
      'replacing ValidatingWebhookConfiguration voe-dev left by voe serve --dev (pid 4242 on host laptop, https://127.0.0.1:40001, id 0123456789abcdef), which no longer answers',
  });
});
