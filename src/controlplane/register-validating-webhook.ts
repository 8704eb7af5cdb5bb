import { AdmissionregistrationV1Api, type KubeConfig, type V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';

export interface RegisteredWebhook {
  readonly name: string;
  /** Deletes the configuration (a missing one is fine). */
  remove(): Promise<void>;
}

/**
 * Creates or replaces a ValidatingWebhookConfiguration so the API server calls a local HTTPS
 * server (envtest convention: each webhook's clientConfig is `url` + `caBundle`, no service).
 */
export async function registerValidatingWebhook(kc: KubeConfig, body: V1ValidatingWebhookConfiguration): Promise<RegisteredWebhook> {
  const api = kc.makeApiClient(AdmissionregistrationV1Api);
  const name = body.metadata?.name;
  if (!name) throw new TypeError('ValidatingWebhookConfiguration needs metadata.name');
  try {
    await api.createValidatingWebhookConfiguration({ body });
  } catch (error) {
    if ((error as { code?: number }).code !== 409) throw error;
    const existing = await api.readValidatingWebhookConfiguration({ name });
    await api.replaceValidatingWebhookConfiguration({ name, body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion } } });
  }
  return {
    name,
    async remove() {
      try {
        await api.deleteValidatingWebhookConfiguration({ name });
      } catch (error) {
        if ((error as { code?: number }).code !== 404) throw error;
      }
    },
  };
}
