import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { isAlreadyExists } from '../../../src/kube/index.js';
import { serverSideApply } from '../charts/cluster.js';
import { applyHarvesterGuestRoles, harvesterGuestBindings } from './harvester-guest-roles.js';
import { serviceAccountKubeConfig } from './service-account-kubeconfig.js';

/**
 * A kubeconfig as Harvester generates one for a guest cluster: a ServiceAccount `name` in the
 * guest's VM `namespace`, bound only as Harvester's kubeconfig generator binds it (Harvester's two
 * guest-cluster ClusterRoles, applied first as every Harvester has them), its token, the host's
 * server and CA, and the namespace as its context's. Never admin.
 */
export async function harvesterGuestKubeConfig(
  admin: KubeConfig,
  namespace: string,
  name: string,
): Promise<KubeConfig> {
  const core = admin.makeApiClient(CoreV1Api);
  await core
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name } } })
    .catch((error: unknown) => {
      if (!isAlreadyExists(error)) throw error;
    });
  await applyHarvesterGuestRoles(admin);
  for (const binding of harvesterGuestBindings(namespace, name))
    await serverSideApply(admin, binding);
  return serviceAccountKubeConfig(admin, namespace, name);
}
