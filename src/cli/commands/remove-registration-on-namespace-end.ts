import type { KubeClientConfig } from '../../kube/index.js';
import type { Logger } from '../../log/index.js';
import { removeRegistrationIfNamespaceEnds } from '../../webhook/index.js';

/**
 * voe serve --registration: once asked to stop, removes the configuration when the webhook's
 * namespace is being deleted, and says what it did. A failure is logged, never fatal: the stop
 * goes on (docs/install.md gives the command that removes a configuration left behind).
 */
export async function removeRegistrationOnNamespaceEnd(
  kubeConfig: KubeClientConfig,
  namespace: string,
  name: string,
  logger: Logger,
): Promise<void> {
  try {
    const outcome = await removeRegistrationIfNamespaceEnds(kubeConfig, { namespace, name });
    if (outcome === 'kept') return;
    logger.info(
      { namespace, validatingWebhookConfiguration: name, outcome },
      'namespace being deleted: removed the webhook configuration that calls its Service',
    );
  } catch (error) {
    logger.error(
      { namespace, validatingWebhookConfiguration: name, err: error },
      `could not remove the webhook configuration of a namespace being deleted; remove it with: kubectl delete validatingwebhookconfiguration ${name}`,
    );
  }
}
