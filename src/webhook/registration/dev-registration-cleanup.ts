import type { KubeClientConfig } from '../../kube/index.js';
import { apiErrorOf } from '../../kube/index.js';
import type { Logger } from '../../log/index.js';
import type { Cleanup } from '../start-up-cleanups.js';
import { deleteValidatingWebhookConfiguration } from './webhook-registration.js';

/**
 * Undoes voe serve --dev's registration: deletes the ValidatingWebhookConfiguration `name` only if
 * it is still the object registered (uid), and says what happened; `left` says how to delete it by
 * hand and why it matters.
 */
export function devRegistrationCleanup(options: {
  kubeConfig: KubeClientConfig;
  name: string;
  uid: string;
  url: string;
  logger: Logger;
}): Cleanup {
  const { kubeConfig, name, uid, url, logger: log } = options;
  return {
    run: async () => {
      // Only the object we created (uid precondition): the name may hold someone else's by now.
      let outcome;
      try {
        outcome = await deleteValidatingWebhookConfiguration(kubeConfig, name, { uid });
      } catch (error) {
        // The API server's (or the connection's) own words; `left` says the rest.
        const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
        throw new Error(apiErrorOf(cause)?.message || String(cause), { cause: error });
      }
      if (outcome === 'deleted')
        log.info({ configuration: name, uid }, 'ValidatingWebhookConfiguration removed');
      else if (outcome === 'gone')
        log.warn(
          { configuration: name, uid },
          'ValidatingWebhookConfiguration was already deleted by someone else',
        );
      else
        log.warn(
          { configuration: name, uid },
          'ValidatingWebhookConfiguration of this name is no longer the one this instance registered (another uid): left as it is',
        );
    },
    left: (why) =>
      `Could not remove ValidatingWebhookConfiguration ${name} (uid ${uid}): ${why.replace(/\.$/, '')}. ` +
      `It still sends PVC storage request changes, VM volumeClaimTemplates changes and the Setting to ${url}, which no longer answers: ` +
      `with failurePolicy Fail the API server refuses them until it is deleted. Delete it by hand: kubectl delete validatingwebhookconfiguration ${name}`,
  };
}
