import { AdmissionregistrationV1Api, type KubeConfig, type V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';
import { apiErrorOf, isAlreadyExists, isNotFound } from '../kube/index.js';
import { WebhookError } from './webhook-error.js';

/** The API server's message for a failed call (the Status body), else the error's own text. */
function describe(error: unknown): string {
  return apiErrorOf(error)?.message || (error instanceof Error ? error.message : String(error));
}

/** Creates the ValidatingWebhookConfiguration, or replaces the one with the same name. */
export async function applyValidatingWebhookConfiguration(kubeConfig: KubeConfig, body: V1ValidatingWebhookConfiguration): Promise<void> {
  const api = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const name = body.metadata?.name ?? '';
  try {
    await api.createValidatingWebhookConfiguration({ body });
    return;
  } catch (error) {
    if (!isAlreadyExists(error)) {
      throw new WebhookError('WEBHOOK_REGISTRATION_FAILED', `Cannot create ValidatingWebhookConfiguration ${name}: ${describe(error)}. Check the kubeconfig and that the user may create validatingwebhookconfigurations.`, { cause: error });
    }
  }
  try {
    const existing = await api.readValidatingWebhookConfiguration({ name });
    await api.replaceValidatingWebhookConfiguration({
      name,
      body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion } },
    });
  } catch (error) {
    throw new WebhookError('WEBHOOK_REGISTRATION_FAILED', `Cannot replace ValidatingWebhookConfiguration ${name}: ${describe(error)}.`, { cause: error });
  }
}

/** Deletes the ValidatingWebhookConfiguration; already gone is fine. */
export async function deleteValidatingWebhookConfiguration(kubeConfig: KubeConfig, name: string): Promise<void> {
  const api = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  try {
    await api.deleteValidatingWebhookConfiguration({ name });
  } catch (error) {
    if (isNotFound(error)) return;
    throw new WebhookError('WEBHOOK_REGISTRATION_FAILED', `Cannot delete ValidatingWebhookConfiguration ${name}: ${describe(error)}. Delete it by hand (kubectl delete validatingwebhookconfiguration ${name}) or API writes it matches fail.`, { cause: error });
  }
}
