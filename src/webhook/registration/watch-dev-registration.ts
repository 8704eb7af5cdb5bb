import type { V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';
import type { KubeClientConfig } from '../../kube/index.js';
import { apiErrorOf, Informer } from '../../kube/index.js';
import type { Logger } from '../../log/index.js';
import { registrationChanges } from './registration-changes.js';

export interface DevRegistrationWatch {
  stop(): Promise<void>;
}

/**
 * Watches the ValidatingWebhookConfiguration `name` that voe serve --dev registered (`uid`) and
 * says, at warn level, when someone else deletes it (the API server no longer calls this instance:
 * resizes go unjudged) or changes its webhooks (registrationChanges: a failurePolicy, a url, a
 * caBundle...). It changes nothing: deleting the registration is how one stops the webhook by hand,
 * so it is not put back. Stop it before removing the registration yourself. A refused list (403)
 * ends the watch with one warning.
 */
export function watchDevRegistration(options: {
  kubeConfig: KubeClientConfig;
  name: string;
  uid: string;
  logger: Logger;
}): DevRegistrationWatch {
  const { name, uid, logger: log } = options;
  const informer = new Informer<V1ValidatingWebhookConfiguration>({
    kubeConfig: options.kubeConfig,
    resource: {
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      plural: 'validatingwebhookconfigurations',
    },
    fieldSelector: `metadata.name=${name}`,
    logger: log,
  });
  let synced = false;
  informer.on('sync', () => {
    if (!synced && !informer.get(undefined, name)) {
      log.warn(
        { configuration: name, uid },
        `ValidatingWebhookConfiguration ${name} was deleted by someone else right after it was registered: the API server does not call this voe serve --dev; restart it to register again`,
      );
    }
    synced = true;
  });
  informer.on('update', (now, before) => {
    if (now.metadata?.uid !== uid) return;
    const changes = registrationChanges(before.webhooks ?? [], now.webhooks ?? []);
    if (changes.length === 0) return;
    log.warn(
      { configuration: name, uid, changes },
      `ValidatingWebhookConfiguration ${name} was changed by someone else while voe serve --dev runs; it is left as it is (and removed on exit)`,
    );
  });
  informer.on('delete', (gone) => {
    if (gone.metadata?.uid !== uid) return;
    log.warn(
      { configuration: name, uid },
      `ValidatingWebhookConfiguration ${name} was deleted by someone else while voe serve --dev runs: the API server no longer calls this webhook, so resizes are not judged; restart voe serve --dev to register it again`,
    );
  });
  let refused = false;
  informer.on('error', (error) => {
    if (refused || apiErrorOf(error)?.code !== 403) return;
    refused = true;
    log.warn(
      { configuration: name },
      `not allowed to watch ValidatingWebhookConfiguration ${name}: a deletion or change by someone else will not be reported`,
    );
    void informer.stop();
  });
  informer.start().catch(() => undefined);
  return { stop: () => informer.stop() };
}
