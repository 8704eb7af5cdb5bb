import type { KubeClientConfig } from '../../kube/index.js';
import { isNotFound, requestJson } from '../../kube/index.js';

/** What `voe serve --registration NAME --namespace NS` does with NAME when it stops. */
export type NamespaceEndOutcome = 'removed' | 'kept' | 'absent';

/**
 * Whether a stopping webhook removes its registration: only when its namespace is being deleted
 * (or is gone). Its Service goes with the namespace, and a configuration left behind would make
 * the API server refuse (failurePolicy Fail) every request it matches. A pod stopping for any
 * other reason (a rollout, an eviction, a node drain) keeps it. Pure.
 */
export function removesRegistration(
  namespace: { deletionTimestamp?: unknown } | undefined,
): boolean {
  return namespace === undefined || namespace.deletionTimestamp !== undefined;
}

/**
 * Reads `namespace` and deletes ValidatingWebhookConfiguration `name` when removesRegistration
 * says so. Needs get on that namespace and delete on that configuration (the chart grants both,
 * by name); a configuration already gone is 'absent'.
 */
export async function removeRegistrationIfNamespaceEnds(
  kubeConfig: KubeClientConfig,
  options: { namespace: string; name: string },
): Promise<NamespaceEndOutcome> {
  const namespace = await requestJson<{ metadata?: { deletionTimestamp?: string } }>(kubeConfig, {
    method: 'GET',
    path: `/api/v1/namespaces/${encodeURIComponent(options.namespace)}`,
  }).then(
    (object) => object.metadata ?? {},
    (error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    },
  );
  if (!removesRegistration(namespace)) return 'kept';
  try {
    await requestJson(kubeConfig, {
      method: 'DELETE',
      path: `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${encodeURIComponent(options.name)}`,
    });
    return 'removed';
  } catch (error) {
    if (isNotFound(error)) return 'absent';
    throw error;
  }
}
