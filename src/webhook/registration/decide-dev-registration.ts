import { DEV_OWNER_ANNOTATION, describeDevOwner, type DevOwner } from './dev-registration-owner.js';
import { WebhookError } from '../webhook-error.js';

export type DevRegistrationDecision =
  { action: 'replace'; warning: string } | { action: 'refuse'; error: WebhookError };

/**
 * What `voe serve --dev` does when a ValidatingWebhookConfiguration named `name` already exists.
 * `owner`: its DEV_OWNER_ANNOTATION (readDevOwner); `ownerAnswers`: whether that instance's /livez
 * answered over TLS trusting the configuration's caBundle. Only a voe serve --dev registration whose
 * instance is gone (killed, so it could not remove it) is replaced; anything else is left untouched.
 * Pure.
 */
export function decideDevRegistration(
  name: string,
  owner: DevOwner | 'unreadable' | undefined,
  ownerAnswers: boolean,
): DevRegistrationDecision {
  if (owner === undefined) {
    return {
      action: 'refuse',
      error: new WebhookError(
        'WEBHOOK_CONFIGURATION_NOT_OURS',
        `ValidatingWebhookConfiguration ${name} exists and was not registered by voe serve --dev (no ${DEV_OWNER_ANNOTATION} annotation): ` +
          "it may be the in-cluster webhook (manifests/webhook.yaml) or someone else's. Nothing was changed. " +
          'Pass another --webhook-configuration-name (default voe-dev).',
      ),
    };
  }
  if (owner === 'unreadable') {
    return {
      action: 'refuse',
      error: new WebhookError(
        'WEBHOOK_CONFIGURATION_NOT_OURS',
        `ValidatingWebhookConfiguration ${name} carries a ${DEV_OWNER_ANNOTATION} annotation that does not say which instance registered it ` +
          '(edited by hand?). Nothing was changed. Delete it if nobody uses it ' +
          `(kubectl delete validatingwebhookconfiguration ${name}) or pass another --webhook-configuration-name.`,
      ),
    };
  }
  if (ownerAnswers) {
    return {
      action: 'refuse',
      error: new WebhookError(
        'WEBHOOK_CONFIGURATION_IN_USE',
        `ValidatingWebhookConfiguration ${name} is registered by another ${describeDevOwner(owner)}, which still answers. ` +
          'Nothing was changed. Stop that one first, or pass --webhook-configuration-name to register this one under another name.',
      ),
    };
  }
  return {
    action: 'replace',
    warning: `replacing ValidatingWebhookConfiguration ${name} left by ${describeDevOwner(owner)}, which no longer answers`,
  };
}
