import type { KubeConfig } from '@kubernetes/client-node';
import { serverSideApply } from '../charts/cluster.js';
import { GUEST_CHART, type Helm } from '../charts/render.js';
import { serviceAccountKubeConfig } from './service-account-kubeconfig.js';

/** The controller's ServiceAccount and its RBAC in charts/voe-csi (templates/guest-rbac.yaml). */
const CONTROLLER_ACCOUNT = 'voe-csi-controller';
const RBAC_KINDS = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];

/**
 * A kubeconfig of the guest chart's controller ServiceAccount (`voe-csi-controller` in
 * `namespace`), with exactly the RBAC charts/voe-csi renders for it, applied from `helm template`:
 * what `voe csi` in the controller pod talks to the guest API server with. Never admin.
 */
export async function chartControllerKubeConfig(
  admin: KubeConfig,
  helm: Helm,
  namespace: string,
): Promise<KubeConfig> {
  const objects = await helm.template(GUEST_CHART, { namespace });
  for (const object of objects)
    if (RBAC_KINDS.includes(object.kind ?? '') && object.metadata?.name === CONTROLLER_ACCOUNT)
      await serverSideApply(admin, object);
  return serviceAccountKubeConfig(admin, namespace, CONTROLLER_ACCOUNT);
}
