import type { KubeConfig } from '@kubernetes/client-node';
import { serverSideApply } from '../charts/cluster.js';
import type { Rendered } from '../charts/render.js';
import { serviceAccountKubeConfig } from './service-account-kubeconfig.js';

/**
 * A kubeconfig of the guest chart's controller ServiceAccount, once `access` (that account and
 * the RBAC charts/voe-csi renders for it: chartGuestObjects' controllerAccess) is applied: what
 * `voe csi` in the controller pod talks to the guest API server with. Never admin.
 */
export async function chartControllerKubeConfig(
  admin: KubeConfig,
  access: readonly Rendered[],
): Promise<KubeConfig> {
  for (const object of access) await serverSideApply(admin, object);
  const account = access.find((o) => o.kind === 'ServiceAccount');
  if (!account?.metadata?.name || !account.metadata.namespace)
    throw new Error('the chart renders no controller ServiceAccount');
  return serviceAccountKubeConfig(admin, account.metadata.namespace, account.metadata.name);
}
