import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

/**
 * A kubeconfig that authenticates as the ServiceAccount `namespace/name` (a token of the
 * TokenRequest API, one hour), on the admin's server and CA, with `namespace` as its context's.
 */
export async function serviceAccountKubeConfig(
  admin: KubeConfig,
  namespace: string,
  name: string,
): Promise<KubeConfig> {
  const { status } = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster();
  if (!cluster || !status?.token) throw new Error(`no cluster or token for ${namespace}/${name}`);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ ...cluster, name: 'cluster' }],
    users: [{ name, token: status.token }],
    contexts: [{ name: 'sa', cluster: 'cluster', user: name, namespace }],
    currentContext: 'sa',
  });
  return kubeConfig;
}
